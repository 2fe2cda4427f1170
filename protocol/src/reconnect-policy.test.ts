import { describe, expect, it } from 'vitest';
import { backoffPolicy } from './reconnect-policy';

const schedule = (policy: ReturnType<typeof backoffPolicy>, count: number) =>
  Array.from({ length: count }, (_, index) => policy.nextDelayMs(index + 1));

describe('backoffPolicy', () => {
  it('grows by the factor up to the cap, and never stops unless told to', () => {
    const policy = backoffPolicy({ baseMs: 200, factor: 2, maxMs: 10_000 });
    expect(schedule(policy, 8)).toEqual([200, 400, 800, 1600, 3200, 6400, 10_000, 10_000]);
    expect(policy.nextDelayMs(1_000)).toBe(10_000);
  });

  it('goes at once first when asked, then grows from the base', () => {
    const policy = backoffPolicy({ immediateFirst: true, baseMs: 500, factor: 2, maxMs: 8_000 });
    expect(schedule(policy, 7)).toEqual([0, 500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('says stop after the last attempt', () => {
    const policy = backoffPolicy({ baseMs: 100, factor: 1.5, maxMs: 1_000, maxAttempts: 3 });
    expect(schedule(policy, 5)).toEqual([100, 150, 225, null, null]);
  });

  it('makes each wait up to the jitter longer, never shorter, and never delays an immediate first', () => {
    const low = backoffPolicy({
      immediateFirst: true,
      baseMs: 500,
      factor: 2,
      maxMs: 8_000,
      jitter: 0.25,
      random: () => 0,
    });
    const high = backoffPolicy({
      immediateFirst: true,
      baseMs: 500,
      factor: 2,
      maxMs: 8_000,
      jitter: 0.25,
      random: () => 0.999_999,
    });
    expect(schedule(low, 4)).toEqual([0, 500, 1000, 2000]);
    const highs = schedule(high, 4);
    expect(highs[0]).toBe(0);
    expect(highs[1]).toBeCloseTo(625, 2);
    expect(highs[3]).toBeCloseTo(2500, 2);
  });

  it('spreads the waits of many clients over the jitter band', () => {
    const delays = Array.from({ length: 200 }, () =>
      backoffPolicy({ baseMs: 1_000, factor: 2, maxMs: 8_000, jitter: 0.5 }).nextDelayMs(1),
    ) as number[];
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1_500);
    expect(new Set(delays.map((delay) => Math.floor(delay / 100))).size).toBeGreaterThan(3);
  });

  it('refuses options that make no schedule', () => {
    expect(() => backoffPolicy({ baseMs: -1, factor: 2, maxMs: 10 })).toThrow(/baseMs/);
    expect(() => backoffPolicy({ baseMs: 1, factor: Number.NaN, maxMs: 10 })).toThrow(/factor/);
    expect(() => backoffPolicy({ baseMs: 1, factor: 2, maxMs: 10, jitter: -0.1 })).toThrow(
      /jitter/,
    );
  });
});
