import { describe, expect, it } from 'vitest';
import { droneLoop } from './cabin-audio';

describe('droneLoop', () => {
  it('is a whole number of 10 ms frames whose end meets its start', () => {
    for (const baseHz of [85, 97, 109]) {
      const loop = droneLoop(baseHz);
      expect(loop.length % 480).toBe(0);
      // Across the seam the wave moves no more than between any two neighbouring samples.
      const steps = loop.slice(1).map((value, index) => Math.abs(value - (loop[index] ?? 0)));
      const seam = Math.abs((loop[0] ?? 0) - (loop[loop.length - 1] ?? 0));
      expect(seam).toBeLessThanOrEqual(Math.max(...steps));
    }
  });

  it('is a quiet low tone (peaks near -20 dBFS, about 85 upward zero crossings a second)', () => {
    const loop = droneLoop(85);
    const peak = Math.max(...loop.map((value) => Math.abs(value)));
    expect(20 * Math.log10(peak / 32768)).toBeGreaterThan(-25);
    expect(20 * Math.log10(peak / 32768)).toBeLessThan(-15);
    // Upward crossings with hysteresis, so the faint noise does not count.
    let crossings = 0;
    let low = false;
    for (let index = 0; index < 48_000; index += 1) {
      const value = loop[index] ?? 0;
      if (value < -500) low = true;
      else if (value > 500 && low) {
        crossings += 1;
        low = false;
      }
    }
    expect(crossings).toBeGreaterThan(60);
    expect(crossings).toBeLessThan(200);
  });
});
