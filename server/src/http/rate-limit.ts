/**
 * Fixed-window rate limiting behind a store interface (login attempts, participant tokens per
 * user, WHIP offers per address): in memory for one process (the default),
 * or in PostgreSQL shared by every instance behind a load balancer (`RATE_LIMIT_STORE=postgres`,
 * db/postgres-rate-limit-store.ts, decision 0030).
 */
export interface RateLimitStore {
  /** Counts one hit on `key` in the window that contains now; returns the count and window end. */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
}

export function createMemoryRateLimitStore(options: { maxKeys?: number } = {}): RateLimitStore {
  const maxKeys = options.maxKeys ?? 100_000;
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    async hit(key, windowMs, now) {
      let window = windows.get(key);
      if (window === undefined || window.resetAt <= now) {
        if (windows.size >= maxKeys) {
          for (const [staleKey, stale] of windows) {
            if (stale.resetAt <= now) windows.delete(staleKey);
          }
          // Still full of live windows: forget the oldest rather than grow without bound.
          if (windows.size >= maxKeys) windows.delete(windows.keys().next().value!);
        }
        window = { count: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetAt: window.resetAt };
    },
  };
}

export interface RateLimitRule {
  /** Namespaces the keys of one rule, e.g. 'login-address'. */
  name: string;
  max: number;
  windowMs: number;
}

export type RateLimitVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export function createRateLimiter(store: RateLimitStore, now: () => number = Date.now) {
  return {
    async check(rule: RateLimitRule, key: string): Promise<RateLimitVerdict> {
      const time = now();
      const { count, resetAt } = await store.hit(`${rule.name}:${key}`, rule.windowMs, time);
      if (count <= rule.max) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((resetAt - time) / 1000)) };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** Login attempts: generous for a person mistyping, tight enough to make guessing slow. */
export const LOGIN_RATE_LIMITS = {
  perAddress: { name: 'login-address', max: 30, windowMs: 60_000 },
  perUsername: { name: 'login-username', max: 10, windowMs: 60_000 },
} satisfies Record<string, RateLimitRule>;

/**
 * Participant tokens per user (`TOKEN_RATE_LIMIT_PER_MINUTE`): a person opening streams, their
 * prefetches and reconnects stays well under it; one account cannot mint the seats of a stage.
 */
export function tokenRateLimit(perMinute: number): RateLimitRule {
  return { name: 'token-user', max: perMinute, windowMs: 60_000 };
}

/**
 * WHIP offers per address (`WHIP_RATE_LIMIT_PER_MINUTE`): an encoder reconnecting after a drop
 * stays well under it. Kept at the API, since the stage sees only the API's address.
 */
export function whipRateLimit(perMinute: number): RateLimitRule {
  return { name: 'whip-address', max: perMinute, windowMs: 60_000 };
}

/**
 * Trickle ICE PATCHes (`TRICKLE_RATE_LIMIT_PER_MINUTE`) per address, WHIP and WHEP together: a
 * client sends one per candidate or a few per session, so a player or an encoder reconnecting
 * stays far below it; the stage also bounds the PATCHes of each session.
 */
export function trickleRateLimit(perMinute: number): RateLimitRule {
  return { name: 'trickle-address', max: perMinute, windowMs: 60_000 };
}

/** WHEP offers (players' POSTs under /stage/whep/) per address, as for WHIP. */
export function whepRateLimit(perMinute: number): RateLimitRule {
  return { name: 'whep-address', max: perMinute, windowMs: 60_000 };
}
