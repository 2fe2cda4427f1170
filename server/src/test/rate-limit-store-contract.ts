/**
 * What every rate-limit store owes the limiter's progressive delays (decision 0059), run against
 * the memory store and the PostgreSQL one (PGlite and a real server) alike.
 */
import { expect, it } from 'vitest';
import { createRateLimiter, type ProgressiveRule, type RateLimitStore } from '../http/rate-limit';

const rule: ProgressiveRule = {
  name: 'contract',
  free: 3,
  windowMs: 60_000,
  delaysMs: [1_000, 2_000, 4_000],
};

/** `open` gives a store with no counts (or its own keys' counts only). */
export function delayContract(open: () => Promise<RateLimitStore>): void {
  it('lets the free attempts through, then one attempt per delay, each delay double the last', async () => {
    let now = 1_000_000;
    const limiter = createRateLimiter(await open(), () => now);
    const attempt = (key = 'a') => limiter.checkWithDelay(rule, key);
    for (let free = 0; free < 3; free += 1) expect(await attempt()).toEqual({ allowed: true });
    for (const seconds of [1, 2, 4, 4]) {
      expect(await attempt()).toEqual({ allowed: false, retryAfterSeconds: seconds });
      // Refusals change nothing: not the delay, not the count behind the next one.
      now += seconds * 1000 - 1;
      expect(await attempt()).toEqual({ allowed: false, retryAfterSeconds: 1 });
      now += 1;
      expect(await attempt()).toEqual({ allowed: true });
    }
    expect(await attempt('b')).toEqual({ allowed: true });
  });

  it('starts the count again once the window has passed and no delay holds', async () => {
    let now = 2_000_000;
    const limiter = createRateLimiter(await open(), () => now);
    const attempt = () => limiter.checkWithDelay(rule, 'window');
    for (let free = 0; free < 3; free += 1) await attempt();
    now += 59_000;
    expect(await attempt()).toEqual({ allowed: true });
    // The window's end came while that attempt's delay (2 s) held: the delay is kept...
    now += 1_000;
    expect(await attempt()).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 1_000;
    // ...and after it, a new window with its free attempts.
    for (let free = 0; free < 3; free += 1) expect(await attempt()).toEqual({ allowed: true });
    expect(await attempt()).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('lets exactly the free attempts through a burst of concurrent ones', async () => {
    const store = await open();
    const verdicts = await Promise.all(
      Array.from({ length: 40 }, () =>
        store.hitWithDelay('contract:burst', { ...rule, free: 10 }, 5_000),
      ),
    );
    expect(verdicts.filter((verdict) => verdict.allowed)).toHaveLength(10);
    expect(verdicts.filter((verdict) => !verdict.allowed)).toEqual(
      Array(30).fill({ allowed: false, retryAt: 6_000 }),
    );
  });
}
