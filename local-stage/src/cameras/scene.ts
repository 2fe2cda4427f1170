/**
 * What each synthetic aircraft camera shows: a view over the wing, with sky, clouds and terrain
 * sliding past, and a HUD (tail number, UTC clock, frame counter). Each tail number has its own
 * palette and scenery so that a person can tell the streams apart at a glance; the time strip
 * along the bottom lets a machine do the same.
 *
 * The scene is written straight into the I420 frame (flat shapes need no canvas); only the HUD's
 * text is drawn with @napi-rs/canvas, once, at start (./hud-band.ts): its band and each glyph of its clock become
 * I420 there, and a frame copies them (docs/decisions/0025-camera-rendering.md). The camera
 * process shares the machine with whoever watches, so each frame's work is kept to what changes:
 * the ridges' sines come from tables made at start, rows wholly inside a shape are filled at once,
 * and a cloud is filled by the span of each row.
 */
import { timeStripGeometry, writeTimeStripI420 } from '../time-strip';
import { HudBand } from './hud-band';

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

/** The three sines a ridge's height sums. */
const RIDGE_HARMONICS = [
  { frequency: 2.1, phase: 1, seed: 1, weight: 0.6 },
  { frequency: 5.3, phase: 1.7, seed: 2, weight: 0.3 },
  { frequency: 11.7, phase: 2.9, seed: 0, weight: 0.1 },
] as const;
type RidgeHarmonic = (typeof RIDGE_HARMONICS)[number];

/** One value for each of the ridge's three harmonics, in their order. */
function perHarmonic<T>(make: (harmonic: RidgeHarmonic) => T): readonly [T, T, T] {
  const [first, second, third] = RIDGE_HARMONICS;
  return [make(first), make(second), make(third)];
}

/**
 * A terrain ridge's height across the view, `relief` × the sum of three sines of the column
 * (0..1) sliding with `phase`: sin(k·u + m·phase + seed·n). Each sine is split once, at start,
 * into the column's part and the phase's (sin(a + b) = sin a·cos b + cos a·sin b), so a frame
 * takes three sines and cosines in all rather than three a column.
 */
export class Ridge {
  private readonly sines: readonly [Float64Array, Float64Array, Float64Array];
  private readonly cosines: readonly [Float64Array, Float64Array, Float64Array];

  constructor(width: number, seed: number) {
    const columns = (wave: (angle: number) => number) =>
      perHarmonic((harmonic) =>
        Float64Array.from({ length: width }, (_, x) =>
          wave((x / width) * harmonic.frequency + seed * harmonic.seed),
        ),
      );
    this.sines = columns(Math.sin);
    this.cosines = columns(Math.cos);
  }

  /** Writes top[x] = round(base + scale × height(x)), clamped to [low, high]. */
  tops(
    phase: number,
    relief: number,
    base: number,
    scale: number,
    low: number,
    high: number,
    top: Int32Array,
  ): void {
    const [first, second, third] = perHarmonic((harmonic) => ({
      sin: Math.sin(phase * harmonic.phase) * harmonic.weight,
      cos: Math.cos(phase * harmonic.phase) * harmonic.weight,
    }));
    const [s0, s1, s2] = this.sines;
    const [c0, c1, c2] = this.cosines;
    for (let x = 0; x < top.length; x += 1) {
      const height =
        (s0[x] as number) * first.cos +
        (c0[x] as number) * first.sin +
        (s1[x] as number) * second.cos +
        (c1[x] as number) * second.sin +
        (s2[x] as number) * third.cos +
        (c2[x] as number) * third.sin;
      top[x] = Math.max(low, Math.min(high, Math.round(base + scale * relief * height)));
    }
  }
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
  private readonly hud: HudBand;
  private readonly farRidge: Ridge;
  private readonly nearRidge: Ridge;
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
    this.hud = new HudBand({
      streamId: options.streamId,
      width,
      height,
      band: this.hudHeight,
      background: this.palette.hud,
      accent: this.palette.accent,
    });
    this.farRidge = new Ridge(width, 1);
    this.nearRidge = new Ridge(width, 4);
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
    // Row y of an ellipse centred at cx, of half-width rx, `dy` half-heights from its middle.
    const fillSpan = (
      y: number,
      cx: number,
      rx: number,
      dy: number,
      left: number,
      right: number,
      colour: Yuv,
    ) => {
      if (dy * dy > 1) return;
      const half = rx * Math.sqrt(1 - dy * dy);
      const x0 = Math.max(left, Math.ceil(cx - half));
      const x1 = Math.min(right, Math.floor(cx + half) + 1);
      if (x1 <= x0) return;
      out.fill(colour[0], y * width + x0, y * width + x1);
      if (y % 2 === 0) {
        const row = (y / 2) * chromaWidth;
        out.fill(colour[1], uOffset + row + Math.ceil(x0 / 2), uOffset + row + Math.ceil(x1 / 2));
        out.fill(colour[2], vOffset + row + Math.ceil(x0 / 2), vOffset + row + Math.ceil(x1 / 2));
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

    // Clouds drift slowly across the sky: two ellipses each, filled row by row, span by span.
    for (let index = 0; index < 4; index += 1) {
      const span = width * 1.4;
      const cx =
        width - (((index * 0.37 + seconds * 0.02 * (1 + index * 0.3)) % 1) * span - width * 0.2);
      const cy = horizon * (0.2 + 0.15 * index) + this.hudHeight * 0.5;
      const rx = width * 0.08;
      const ry = height * 0.03;
      const left = Math.max(0, Math.floor(cx - rx));
      const right = Math.min(width, Math.ceil(cx + rx * 1.8)); // exclusive
      for (
        let y = Math.max(this.hudHeight, Math.floor(cy - ry));
        y <= Math.min(horizon, cy + ry * 1.6);
        y += 1
      ) {
        fillSpan(y, cx, rx, (y - cy) / ry, left, right, this.colors.cloud);
        fillSpan(
          y,
          cx + rx * 0.6,
          rx * 0.75,
          (y - cy - ry * 0.3) / (ry * 0.8),
          left,
          right,
          this.colors.cloud,
        );
      }
    }

    // Two layers of terrain, the nearer one sliding faster (parallax).
    const phase = (seconds * palette.speed * Math.PI * 2) / 60;
    const hud = this.hudHeight;
    this.farRidge.tops(phase * 0.5, palette.relief, horizon, view, hud, view, this.farTop);
    this.nearRidge.tops(
      phase,
      palette.relief,
      horizon + view * 0.12,
      view,
      hud,
      view,
      this.nearTop,
    );
    // Below the lowest point of the near ridge every row is near ground: filled at once. Above
    // it, column by column: far ground down to the near ridge, then near ground.
    let top = view;
    let allNear = hud;
    for (let x = 0; x < width; x += 1) {
      const near = this.nearTop[x] ?? view;
      top = Math.min(top, near, this.farTop[x] ?? view);
      allNear = Math.max(allNear, near);
    }
    const [farY, farU, farV] = this.colors.far;
    const [nearY, nearU, nearV] = this.colors.near;
    for (let x = 0; x < width; x += 1) {
      const far = this.farTop[x] ?? view;
      const near = this.nearTop[x] ?? view;
      for (let y = Math.min(far, near); y < allNear; y += 1)
        out[y * width + x] = y >= near ? nearY : farY;
    }
    out.fill(nearY, allNear * width, view * width);
    const allNearChroma = Math.ceil(allNear / 2);
    for (let cx = 0; cx < chromaWidth; cx += 1) {
      const far = this.farTop[cx * 2] ?? view;
      const near = this.nearTop[cx * 2] ?? view;
      for (let cy = Math.ceil(Math.min(far, near) / 2); cy < allNearChroma; cy += 1) {
        const isNear = cy * 2 >= near;
        out[uOffset + cy * chromaWidth + cx] = isNear ? nearU : farU;
        out[vOffset + cy * chromaWidth + cx] = isNear ? nearV : farV;
      }
    }
    if (top < view) {
      out.fill(nearU, uOffset + allNearChroma * chromaWidth, uOffset + (view / 2) * chromaWidth);
      out.fill(nearV, vOffset + allNearChroma * chromaWidth, vOffset + (view / 2) * chromaWidth);
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

    this.hud.write(frame, captureTimeMs, out);
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
}
