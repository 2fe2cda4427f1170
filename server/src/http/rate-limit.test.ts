import { describe, expect, it } from 'vitest';
import { delayContract } from '../test/rate-limit-store-contract';
import {
  createMemoryRateLimitStore,
  createRateLimiter,
  delayAfter,
  doublingDelays,
  loginRateLimits,
} from './rate-limit';

const rule = { name: 'test', max: 2, windowMs: 60_000 };

describe('rate limiter', () => {
  it('allows max hits per window, then says how long to wait', async () => {
    let now = 1_000_000;
    const limiter = createRateLimiter(createMemoryRateLimitStore(), () => now);
    expect(await limiter.check(rule, 'a')).toEqual({ allowed: true });
    expect(await limiter.check(rule, 'a')).toEqual({ allowed: true });
    now += 15_000;
    expect(await limiter.check(rule, 'a')).toEqual({ allowed: false, retryAfterSeconds: 45 });
    expect(await limiter.check(rule, 'b')).toEqual({ allowed: true });
    now += 45_000;
    expect(await limiter.check(rule, 'a')).toEqual({ allowed: true });
  });

  it('keeps the in-memory store bounded', async () => {
    const store = createMemoryRateLimitStore({ maxKeys: 3 });
    for (let key = 0; key < 10; key += 1) await store.hit(`k${key}`, 60_000, 0);
    // The oldest keys were forgotten: k0 starts a new window.
    expect((await store.hit('k0', 60_000, 0)).count).toBe(1);
    expect((await store.hit('k9', 60_000, 0)).count).toBe(2);
  });

  it('keeps its delays bounded too', async () => {
    const store = createMemoryRateLimitStore({ maxKeys: 3 });
    const schedule = { free: 1, windowMs: 60_000, delaysMs: [1_000] };
    for (let key = 0; key < 10; key += 1) await store.hitWithDelay(`k${key}`, schedule, 0);
    // k0 was forgotten, so it has no delay; k9 still has one.
    expect(await store.hitWithDelay('k0', schedule, 0)).toEqual({ allowed: true });
    expect(await store.hitWithDelay('k9', schedule, 0)).toEqual({ allowed: false, retryAt: 1_000 });
  });
});

describe('progressive delays', () => {
  it('double from 1 s up to the longest delay', () => {
    expect(doublingDelays(1_000, 60_000)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000,
    ]);
    expect(doublingDelays(1_000, 1_000)).toEqual([1_000]);
    expect(doublingDelays(1_000, 4_000)).toEqual([1_000, 2_000, 4_000]);
  });

  it('start after the free attempts, and the last one repeats', () => {
    const schedule = { free: 10, windowMs: 60_000, delaysMs: [1_000, 2_000, 4_000] };
    expect([1, 9, 10, 11, 12, 13, 500].map((count) => delayAfter(count, schedule))).toEqual([
      0, 0, 1_000, 2_000, 4_000, 4_000, 4_000,
    ]);
  });

  it("login: one address cannot reach the name's ceiling within a window", () => {
    const limits = loginRateLimits({
      attemptsPerAddressPerMinute: 120,
      attemptsPerNameIp: 10,
      attemptsPerName: 100,
      maxDelaySeconds: 60,
    });
    // The most one address gets through in a window (and the next one's free attempts).
    let elapsedMs = 0;
    let count = 0;
    while (elapsedMs < limits.perNameAndAddress.windowMs) {
      count += 1;
      elapsedMs += delayAfter(count, limits.perNameAndAddress);
    }
    expect(count + limits.perNameAndAddress.free).toBeLessThan(limits.perName.free);
  });
});

describe('the memory store', () => {
  delayContract(async () => createMemoryRateLimitStore());
});
