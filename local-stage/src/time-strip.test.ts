import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import {
  decodeTimeStrip,
  decodeTimeStripFromI420,
  drawTimeStrip,
  encodeTimeStrip,
  timeStripGeometry,
  writeTimeStripI420,
  type TimeStripPayload,
} from './time-strip';

const payload: TimeStripPayload = { captureTimeMs: 1_795_000_123_456, streamIndex: 2, frame: 4321 };

function renderedFrame(width: number, height: number, strip: TimeStripPayload) {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  const gradient = context.createLinearGradient(0, 0, 0, height);
  gradient.addColorStop(0, '#3a7bd5');
  gradient.addColorStop(1, '#d9a066');
  context.fillStyle = gradient;
  context.fillRect(0, 0, width, height);
  drawTimeStrip(context, width, height, strip);
  return { canvas, context, image: context.getImageData(0, 0, width, height) };
}

describe('time strip', () => {
  it('reads back the capture time, stream index and frame it was drawn with', () => {
    const { image } = renderedFrame(640, 360, payload);
    expect(decodeTimeStrip(image)).toEqual(payload);
  });

  it('survives blur and noise of the kind lossy video compression adds', () => {
    const { image } = renderedFrame(640, 360, payload);
    const blurred = new Uint8ClampedArray(image.data);
    const { width, height } = image;
    let seed = 7;
    for (let y = 1; y < height - 1; y += 1) {
      for (let x = 1; x < width - 1; x += 1) {
        for (let channel = 0; channel < 3; channel += 1) {
          const at = (dx: number, dy: number) =>
            image.data[((y + dy) * width + x + dx) * 4 + channel] ?? 0;
          const mean = (at(0, 0) * 4 + at(-1, 0) + at(1, 0) + at(0, -1) + at(0, 1)) / 8;
          seed = (seed * 1103515245 + 12345) % 2 ** 31;
          blurred[(y * width + x) * 4 + channel] = mean + ((seed % 61) - 30);
        }
      }
    }
    expect(decodeTimeStrip({ width, height, data: blurred })).toEqual(payload);
  });

  it('reads a frame shown at another size with the same aspect ratio', () => {
    const { canvas } = renderedFrame(640, 360, payload);
    const scaled = createCanvas(1280, 720);
    const context = scaled.getContext('2d');
    context.drawImage(canvas, 0, 0, 1280, 720);
    expect(decodeTimeStrip(context.getImageData(0, 0, 1280, 720))).toEqual(payload);
  });

  it('reads the luma plane of an I420 frame', () => {
    const { image } = renderedFrame(1280, 720, payload);
    const luma = new Uint8Array(1280 * 720 * 1.5);
    for (let pixel = 0; pixel < 1280 * 720; pixel += 1) {
      const r = image.data[pixel * 4] ?? 0;
      const g = image.data[pixel * 4 + 1] ?? 0;
      const b = image.data[pixel * 4 + 2] ?? 0;
      luma[pixel] = 0.299 * r + 0.587 * g + 0.114 * b;
    }
    expect(decodeTimeStripFromI420({ width: 1280, height: 720, data: luma })).toEqual(payload);
  });

  it('writes the same strip straight into an I420 frame', () => {
    const frame = { width: 640, height: 360, data: new Uint8Array(640 * 360 * 1.5).fill(90) };
    writeTimeStripI420(frame, payload);
    expect(decodeTimeStripFromI420(frame)).toEqual(payload);
    const odd = { width: 1280, height: 720, data: new Uint8Array(1280 * 720 * 1.5).fill(200) };
    writeTimeStripI420(odd, { ...payload, streamIndex: 0 });
    expect(decodeTimeStripFromI420(odd)).toEqual({ ...payload, streamIndex: 0 });
  });

  it('answers null for a frame without a strip and for a strip with a flipped cell', () => {
    const blank = createCanvas(640, 360).getContext('2d');
    blank.fillStyle = '#808080';
    blank.fillRect(0, 0, 640, 360);
    expect(decodeTimeStrip(blank.getImageData(0, 0, 640, 360))).toBeNull();

    const { context } = renderedFrame(640, 360, payload);
    const geometry = timeStripGeometry(640, 360);
    const cells = encodeTimeStrip(payload);
    const flipped = 20;
    context.fillStyle = cells[flipped] ? '#000000' : '#ffffff';
    context.fillRect(flipped * geometry.cellSize, geometry.y, geometry.cellSize, geometry.cellSize);
    expect(decodeTimeStrip(context.getImageData(0, 0, 640, 360))).toBeNull();
  });

  it('refuses payloads that do not fit the strip', () => {
    expect(() => encodeTimeStrip({ ...payload, streamIndex: 16 })).toThrow(RangeError);
    expect(() => encodeTimeStrip({ ...payload, captureTimeMs: -1 })).toThrow(RangeError);
    expect(encodeTimeStrip({ ...payload, frame: 65536 + 5 })).toEqual(
      encodeTimeStrip({ ...payload, frame: 5 }),
    );
  });
});
