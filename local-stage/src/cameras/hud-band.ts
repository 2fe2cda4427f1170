/**
 * The HUD band along the top of a synthetic camera's picture: the tail number on the left, the
 * UTC clock with milliseconds and the frame counter on the right. Its text is drawn with
 * @napi-rs/canvas once, at start, and converted to I420 once: the band with the tail number, and
 * each character the clock uses in a cell of the monospace font's advance (rounded to an even
 * width, so that each cell's chroma is its own). A frame copies the band, then the clock's cells
 * (docs/decisions/0025-camera-rendering.md).
 */
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { rgbaToI420 } from './wrtc';

/** The clock's characters. */
const CLOCK_GLYPHS = '0123456789:.UTC# ';

export interface HudBandOptions {
  streamId: string;
  /** The picture's size: even, as I420 needs. */
  width: number;
  height: number;
  /** The band's height: even. */
  band: number;
  /** CSS colours: the band's background, and the tail number's. */
  background: string;
  accent: string;
}

export class HudBand {
  private readonly options: HudBandOptions;
  /** The band without its clock (background, tail number), I420. */
  private readonly bandI420: Uint8Array;
  /** Each clock character's cell, I420: `cellWidth` × the band's height. */
  private readonly cells = new Map<string, Uint8Array>();
  private readonly cellWidth: number;
  /** Where the clock ends on the right (even). */
  private readonly clockRight: number;

  constructor(options: HudBandOptions) {
    this.options = options;
    const { width, height, band, background, accent, streamId } = options;
    const fontSize = Math.round(height / 12);
    this.clockRight = Math.floor((width - fontSize * 0.5) / 2) * 2;

    const context = createCanvas(width, band).getContext('2d');
    context.fillStyle = background;
    context.fillRect(0, 0, width, band);
    context.fillStyle = accent;
    context.font = `bold ${fontSize}px sans-serif`;
    context.textBaseline = 'middle';
    context.textAlign = 'left';
    context.fillText(streamId, fontSize * 0.5, band / 2);
    this.bandI420 = toI420(context, width, band);

    const font = `${Math.round(fontSize * 0.7)}px monospace`;
    const measure = createCanvas(2, 2).getContext('2d');
    measure.font = font;
    this.cellWidth = Math.max(2, Math.round(measure.measureText('0').width / 2) * 2);
    for (const glyph of CLOCK_GLYPHS) {
      const cell = createCanvas(this.cellWidth, band).getContext('2d');
      cell.fillStyle = background;
      cell.fillRect(0, 0, this.cellWidth, band);
      cell.fillStyle = '#ffffff';
      cell.font = font;
      cell.textBaseline = 'middle';
      cell.textAlign = 'center';
      cell.fillText(glyph, this.cellWidth / 2, band / 2);
      this.cells.set(glyph, toI420(cell, this.cellWidth, band));
    }
  }

  /** Writes the band, with frame number `frame` captured at `captureTimeMs`, into `out` (I420). */
  write(frame: number, captureTimeMs: number, out: Uint8Array): void {
    const { width, height, band } = this.options;
    const lumaSize = width * band;
    const chromaSize = (width / 2) * (band / 2);
    const uOffset = width * height;
    const vOffset = uOffset + (width / 2) * (height / 2);
    out.set(this.bandI420.subarray(0, lumaSize), 0);
    out.set(this.bandI420.subarray(lumaSize, lumaSize + chromaSize), uOffset);
    out.set(this.bandI420.subarray(lumaSize + chromaSize, lumaSize + 2 * chromaSize), vOffset);

    const clock = new Date(captureTimeMs).toISOString().slice(11, 23);
    const text = `${clock} UTC  #${frame}`;
    const cellWidth = this.cellWidth;
    const cellLuma = cellWidth * band;
    const cellChroma = (cellWidth / 2) * (band / 2);
    const chromaWidth = width / 2;
    for (let index = 0; index < text.length; index += 1) {
      const x0 = this.clockRight - (text.length - index) * cellWidth;
      const cell = this.cells.get(text[index] as string);
      if (x0 < 0 || cell === undefined) continue;
      for (let y = 0; y < band; y += 1) {
        for (let x = 0; x < cellWidth; x += 1)
          out[y * width + x0 + x] = cell[y * cellWidth + x] as number;
      }
      for (let y = 0; y < band / 2; y += 1) {
        for (let x = 0; x < cellWidth / 2; x += 1) {
          const from = cellLuma + y * (cellWidth / 2) + x;
          const to = y * chromaWidth + x0 / 2 + x;
          out[uOffset + to] = cell[from] as number;
          out[vOffset + to] = cell[from + cellChroma] as number;
        }
      }
    }
  }
}

/** The canvas's picture (even width and height) as I420. */
function toI420(context: SKRSContext2D, width: number, height: number): Uint8Array {
  const rgba = context.getImageData(0, 0, width, height);
  const i420 = new Uint8Array(width * height * 1.5);
  const data = new Uint8Array(rgba.data.buffer, rgba.data.byteOffset, rgba.data.byteLength);
  rgbaToI420({ width, height, data }, { width, height, data: i420 });
  return i420;
}
