/**
 * What each synthetic aircraft camera shows: a view over the wing, with sky, clouds and terrain
 * sliding past, and a HUD (tail number, UTC clock, frame counter). Each tail number has its own
 * palette and scenery so that a person can tell the streams apart at a glance; the time strip
 * along the bottom lets a machine do the same.
 *
 * The scene is written straight into the I420 frame (flat shapes need no canvas), and only the
 * HUD band is drawn with @napi-rs/canvas and read back: reading back a whole 640x360 canvas costs
 * 2-4 ms a frame, the HUD band a fraction of that (docs/decisions/0025-camera-rendering.md).
 */
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { timeStripGeometry, writeTimeStripI420 } from '../time-strip';
import { rgbaToI420 } from './wrtc';

type Rgb = readonly [number, number, number];
type Yuv = readonly [number, number, number];

interface Palette {
  skyTop: Rgb;
  skyBottom: Rgb;
  far: Rgb;
  near: Rgb;
  cloud: Rgb;
  wing: Rgb;
  hud: string;
  accent: string;
  accentRgb: Rgb;
  /** Terrain roughness: bigger is hillier. */
  relief: number;
  /** How fast the ground slides past, in terrain waves per minute. */
  speed: number;
}

const PALETTES: Record<string, Palette> = {
  // Midday over green hills.
  N743AS: {
    skyTop: [30, 95, 180],
    skyBottom: [156, 203, 240],
    far: [95, 143, 90],
    near: [47, 107, 52],
    cloud: [245, 247, 250],
    wing: [215, 221, 228],
    hud: '#0d2a52',
    accent: '#ffd23f',
    accentRgb: [255, 210, 63],
    relief: 0.09,
    speed: 6,
  },
  // Sunset over the desert.
  N953AS: {
    skyTop: [59, 31, 92],
    skyBottom: [243, 154, 75],
    far: [138, 75, 58],
    near: [74, 42, 37],
    cloud: [255, 190, 150],
    wing: [154, 160, 170],
    hud: '#24123a',
    accent: '#ff5d8f',
    accentRgb: [255, 93, 143],
    relief: 0.14,
    speed: 4,
  },
  // Grey dawn over the sea.
  N954AS: {
    skyTop: [39, 52, 63],
    skyBottom: [143, 167, 179],
    far: [63, 95, 116],
    near: [31, 59, 79],
    cloud: [220, 230, 235],
    wing: [191, 198, 204],
    hud: '#141d24',
    accent: '#5ef2c5',
    accentRgb: [94, 242, 197],
    relief: 0.03,
    speed: 8,
  },
};

const FALLBACK_PALETTE = PALETTES.N743AS as Palette;

/** Limited-range BT.601, as libyuv (and so the rest of the video path) converts RGB. */
function toYuv([r, g, b]: Rgb): Yuv {
  return [
    ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16,
    ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128,
    ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128,
  ];
}

function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

function ridge(x: number, phase: number, relief: number, seed: number): number {
  return (
    relief *
    (Math.sin(x * 2.1 + phase + seed) * 0.6 +
      Math.sin(x * 5.3 + phase * 1.7 + seed * 2) * 0.3 +
      Math.sin(x * 11.7 + phase * 2.9) * 0.1)
  );
}

export interface SceneOptions {
  streamId: string;
  streamIndex: number;
  /** Even, as I420 needs. */
  width: number;
  height: number;
}

export class SceneRenderer {
  private readonly options: SceneOptions;
  private readonly palette: Palette;
  private readonly colors: Record<'far' | 'near' | 'cloud' | 'wing' | 'accent', Yuv>;
  private readonly viewHeight: number;
  private readonly hudHeight: number;
  private readonly hudContext: SKRSContext2D;
  private readonly hudI420: Uint8Array;
  private readonly farTop: Int32Array;
  private readonly nearTop: Int32Array;

  constructor(options: SceneOptions) {
    this.options = options;
    const { width, height } = options;
    this.palette = PALETTES[options.streamId] ?? FALLBACK_PALETTE;
    this.colors = {
      far: toYuv(this.palette.far),
      near: toYuv(this.palette.near),
      cloud: toYuv(this.palette.cloud),
      wing: toYuv(this.palette.wing),
      accent: toYuv(this.palette.accentRgb),
    };
    // Even boundaries keep every 2x2 chroma block inside one region.
    this.viewHeight = Math.floor(timeStripGeometry(width, height).y / 2) * 2;
    this.hudHeight = Math.round((height / 12) * 0.8) * 2;
    this.hudContext = createCanvas(width, this.hudHeight).getContext('2d');
    this.hudI420 = new Uint8Array(width * this.hudHeight * 1.5);
    this.farTop = new Int32Array(width);
    this.nearTop = new Int32Array(width);
  }

  /** Writes frame number `frame`, captured at `captureTimeMs`, into `out` (I420). */
  render(frame: number, captureTimeMs: number, out: Uint8Array): void {
    const { width, height } = this.options;
    const palette = this.palette;
    const seconds = captureTimeMs / 1000;
    const view = this.viewHeight;
    const horizon = Math.round(view * (0.55 + 0.03 * Math.sin(seconds * 0.4))); // gentle bank
    const chromaWidth = width / 2;
    const uOffset = width * height;
    const vOffset = uOffset + chromaWidth * (height / 2);
    const setRow = (y: number, x0: number, x1: number, [luma, u, v]: Yuv) => {
      out.fill(luma, y * width + x0, y * width + x1);
      if (y % 2 === 0) {
        const row = (y / 2) * chromaWidth;
        out.fill(u, uOffset + row + x0 / 2, uOffset + row + x1 / 2);
        out.fill(v, vOffset + row + x0 / 2, vOffset + row + x1 / 2);
      }
    };
    const setPixel = (x: number, y: number, [luma, u, v]: Yuv) => {
      out[y * width + x] = luma;
      if (y % 2 === 0 && x % 2 === 0) {
        const chroma = (y / 2) * chromaWidth + x / 2;
        out[uOffset + chroma] = u;
        out[vOffset + chroma] = v;
      }
    };

    // Sky: a vertical gradient, row by row.
    for (let y = this.hudHeight; y < view; y += 1) {
      setRow(y, 0, width, toYuv(mix(palette.skyTop, palette.skyBottom, Math.min(1, y / horizon))));
    }

    // Clouds drift slowly across the sky.
    for (let index = 0; index < 4; index += 1) {
      const span = width * 1.4;
      const cx =
        width - (((index * 0.37 + seconds * 0.02 * (1 + index * 0.3)) % 1) * span - width * 0.2);
      const cy = horizon * (0.2 + 0.15 * index) + this.hudHeight * 0.5;
      const rx = width * 0.08;
      const ry = height * 0.03;
      for (
        let y = Math.max(this.hudHeight, Math.floor(cy - ry));
        y <= Math.min(horizon, cy + ry * 1.6);
        y += 1
      ) {
        for (let x = Math.max(0, Math.floor(cx - rx)); x < Math.min(width, cx + rx * 1.8); x += 1) {
          const a = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2;
          const b =
            ((x - cx - rx * 0.6) / (rx * 0.75)) ** 2 + ((y - cy - ry * 0.3) / (ry * 0.8)) ** 2;
          if (a <= 1 || b <= 1) setPixel(x, y, this.colors.cloud);
        }
      }
    }

    // Two layers of terrain, the nearer one sliding faster (parallax).
    const phase = (seconds * palette.speed * Math.PI * 2) / 60;
    for (let x = 0; x < width; x += 1) {
      const u = x / width;
      const far = Math.round(horizon + view * ridge(u, phase * 0.5, palette.relief, 1));
      const near = Math.round(horizon + view * (0.12 + ridge(u, phase, palette.relief, 4)));
      this.farTop[x] = Math.max(this.hudHeight, Math.min(view, far));
      this.nearTop[x] = Math.max(this.hudHeight, Math.min(view, near));
    }
    // Column by column: far ground down to the near ridge, then near ground down to the strip.
    const [farY, farU, farV] = this.colors.far;
    const [nearY, nearU, nearV] = this.colors.near;
    for (let x = 0; x < width; x += 1) {
      const far = this.farTop[x] ?? view;
      const near = this.nearTop[x] ?? view;
      for (let y = Math.min(far, near); y < view; y += 1)
        out[y * width + x] = y >= near ? nearY : farY;
    }
    for (let cx = 0; cx < chromaWidth; cx += 1) {
      const far = this.farTop[cx * 2] ?? view;
      const near = this.nearTop[cx * 2] ?? view;
      for (let cy = Math.ceil(Math.min(far, near) / 2); cy < view / 2; cy += 1) {
        const isNear = cy * 2 >= near;
        out[uOffset + cy * chromaWidth + cx] = isNear ? nearU : farU;
        out[vOffset + cy * chromaWidth + cx] = isNear ? nearV : farV;
      }
    }

    // The wing, from the cabin window, with a blinking tip light.
    const wingTop = Math.round(view * 0.78);
    for (let y = wingTop; y < view; y += 1) {
      const along = (view - y) / (view - wingTop);
      const x0 = Math.min(width, Math.round((width * (0.38 + 0.6 * along)) / 2) * 2);
      setRow(y, x0, width, this.colors.wing);
    }
    if (Math.floor(seconds * 2) % 2 === 0) {
      const radius = Math.max(3, Math.round(width * 0.006));
      const lx = Math.round(width * 0.975);
      for (let y = wingTop - radius; y <= wingTop + radius; y += 1) {
        for (let x = lx - radius; x <= Math.min(width - 1, lx + radius); x += 1) {
          if ((x - lx) ** 2 + (y - wingTop) ** 2 <= radius ** 2) setPixel(x, y, this.colors.accent);
        }
      }
    }

    this.renderHud(frame, captureTimeMs, out);
    this.stamp(frame, captureTimeMs, out);
  }

  /**
   * Writes (again) the time strip alone, cheaply: the camera stamps each frame as it hands it to
   * the encoder, whose RTP timestamp is that instant, not the instant drawing began.
   */
  stamp(frame: number, captureTimeMs: number, out: Uint8Array): void {
    const { width, height } = this.options;
    writeTimeStripI420(
      { width, height, data: out },
      { captureTimeMs, streamIndex: this.options.streamIndex, frame },
    );
  }

  /** The HUD band at the top: drawn with canvas (text), converted, copied into the frame. */
  private renderHud(frame: number, captureTimeMs: number, out: Uint8Array): void {
    const { width, height } = this.options;
    const band = this.hudHeight;
    const context = this.hudContext;
    const fontSize = Math.round(height / 12);
    context.fillStyle = this.palette.hud;
    context.fillRect(0, 0, width, band);
    context.fillStyle = this.palette.accent;
    context.font = `bold ${fontSize}px sans-serif`;
    context.textBaseline = 'middle';
    context.textAlign = 'left';
    context.fillText(this.options.streamId, fontSize * 0.5, band / 2);
    context.fillStyle = '#ffffff';
    context.font = `${Math.round(fontSize * 0.7)}px monospace`;
    context.textAlign = 'right';
    const clock = new Date(captureTimeMs).toISOString().slice(11, 23);
    context.fillText(`${clock} UTC  #${frame}`, width - fontSize * 0.5, band / 2);
    const rgba = context.getImageData(0, 0, width, band);
    rgbaToI420(
      {
        width,
        height: band,
        data: new Uint8Array(rgba.data.buffer, rgba.data.byteOffset, rgba.data.byteLength),
      },
      { width, height: band, data: this.hudI420 },
    );
    const lumaSize = width * band;
    const chromaSize = (width / 2) * (band / 2);
    out.set(this.hudI420.subarray(0, lumaSize), 0);
    out.set(this.hudI420.subarray(lumaSize, lumaSize + chromaSize), width * height);
    out.set(
      this.hudI420.subarray(lumaSize + chromaSize, lumaSize + 2 * chromaSize),
      width * height + (width / 2) * (height / 2),
    );
  }
}
