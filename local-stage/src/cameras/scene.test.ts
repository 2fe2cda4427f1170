import { describe, expect, it } from 'vitest';
import { timeStripGeometry } from '../time-strip';
import { Ridge, SceneRenderer } from './scene';

const WIDTH = 640;
const HEIGHT = 360;
const VIEW = Math.floor(timeStripGeometry(WIDTH, HEIGHT).y / 2) * 2;
const HUD = Math.round((HEIGHT / 12) * 0.8) * 2;
const START = Date.UTC(2026, 10, 30, 10, 0, 0);

function frameAt(scene: SceneRenderer, frame: number, at: number): Uint8Array {
  const out = new Uint8Array(WIDTH * HEIGHT * 1.5);
  scene.render(frame, at, out);
  return out;
}

/** The sum of sines a ridge stands for, as the camera once drew it. */
function ridgeByFormula(u: number, phase: number, relief: number, seed: number): number {
  return (
    relief *
    (Math.sin(u * 2.1 + phase + seed) * 0.6 +
      Math.sin(u * 5.3 + phase * 1.7 + seed * 2) * 0.3 +
      Math.sin(u * 11.7 + phase * 2.9) * 0.1)
  );
}

describe('SceneRenderer', () => {
  it("draws a ridge's outline from its tables where the sum of its sines puts it", () => {
    for (const width of [640, 1280]) {
      const ridge = new Ridge(width, 4);
      const tops = new Int32Array(width);
      let differing = 0;
      let worst = 0;
      for (const phase of [0, 0.7, 3.1, 41.9, 1_000.3]) {
        ridge.tops(phase, 0.14, 200, 330, 0, 330, tops);
        for (let x = 0; x < width; x += 1) {
          const expected = Math.max(
            0,
            Math.min(330, Math.round(200 + 330 * ridgeByFormula(x / width, phase, 0.14, 4))),
          );
          worst = Math.max(worst, Math.abs((tops[x] ?? 0) - expected));
          if (tops[x] !== expected) differing += 1;
        }
      }
      // Only a column whose height falls on a half pixel may round the other way.
      expect(worst).toBeLessThanOrEqual(1);
      expect(differing).toBeLessThanOrEqual(2);
    }
  });

  it('fills the ground below the ridges down to the time strip, in every column clear of the wing', () => {
    for (const streamId of ['N743AS', 'N953AS', 'N954AS']) {
      const scene = new SceneRenderer({ streamId, streamIndex: 0, width: WIDTH, height: HEIGHT });
      for (let frame = 0; frame < 30; frame += 1) {
        const out = frameAt(scene, frame, START + frame * 1_700);
        // Near ground, the colour of the bottom row of the view left of the wing (drawn: luma
        // 16 or more), from where it starts in a column down to the strip: no row left unfilled.
        const near = out[(VIEW - 1) * WIDTH] ?? 0;
        expect(near).toBeGreaterThanOrEqual(16);
        let unfilled = 0;
        for (let x = 0; x < WIDTH * 0.35; x += 7) {
          let y = HUD;
          while (y < VIEW && out[y * WIDTH + x] !== near) y += 1;
          if (y === VIEW) unfilled += 1;
          for (; y < VIEW; y += 1) if (out[y * WIDTH + x] !== near) unfilled += 1;
        }
        expect(unfilled).toBe(0);
      }
    }
  });

  it("shows the tail number fixed and the clock moving in the HUD's band", () => {
    const scene = new SceneRenderer({
      streamId: 'N953AS',
      streamIndex: 0,
      width: WIDTH,
      height: HEIGHT,
    });
    const first = frameAt(scene, 1, START);
    const later = frameAt(scene, 2, START + 1_234);
    const band = (out: Uint8Array, x0: number, x1: number) => {
      const rows: number[] = [];
      for (let y = 0; y < HUD; y += 1) rows.push(...out.subarray(y * WIDTH + x0, y * WIDTH + x1));
      return rows;
    };
    // The tail number, on the left, is the same in both frames, and drawn (not a flat band).
    expect(band(later, 0, WIDTH / 4)).toEqual(band(first, 0, WIDTH / 4));
    expect(new Set(band(first, 0, WIDTH / 4)).size).toBeGreaterThan(2);
    // The clock, on the right, is white text that moved on.
    expect(band(later, WIDTH / 2, WIDTH)).not.toEqual(band(first, WIDTH / 2, WIDTH));
    expect(Math.max(...band(first, WIDTH / 2, WIDTH))).toBeGreaterThan(200);
  });
});
