import { describe, expect, it } from 'vitest';
import { createMemoryRateLimitStore, createRateLimiter } from './rate-limit';

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
});
