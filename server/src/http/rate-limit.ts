/**
 * Rate limiting behind a store interface: fixed windows (login attempts per address, participant
 * tokens per user, WHIP and WHEP offers per address) and progressive delays (login attempts per
 * name, and per name at one address: decision 0059). In memory for one process (the default),
 * or in PostgreSQL shared by every instance behind a load balancer (`RATE_LIMIT_STORE=postgres`,
 * db/postgres-rate-limit-store.ts, decision 0030).
 */
import { HttpError } from './errors';

export interface RateLimitStore {
  /** Counts one hit on `key` in the window that contains now; returns the count and window end. */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  /**
   * One attempt on `key` under a progressive delay, atomically: refused, and not counted, while
   * the delay its last counted attempt set holds; otherwise counted, and the delay for the next
   * one set (`delayAfter`). The count starts again once the window has passed and no delay holds.
   */
  hitWithDelay(key: string, rule: DelaySchedule, now: number): Promise<DelayVerdict>;
}

/** What a store needs to know of a progressive rule. */
export interface DelaySchedule {
  /** Attempts a window lets through with no delay between them (at least 1). */
  free: number;
  windowMs: number;
  /** The delays after the free attempts, in order; the last one repeats. */
  delaysMs: readonly number[];
}

export type DelayVerdict = { allowed: true } | { allowed: false; retryAt: number };

/** The delay the `count`-th attempt of a window sets before the next one. */
export function delayAfter(count: number, schedule: DelaySchedule): number {
  if (count < schedule.free) return 0;
  const { delaysMs } = schedule;
  return delaysMs[Math.min(count - schedule.free, delaysMs.length - 1)] ?? 0;
}

/** Delays that double from `firstMs` and stay at `maxMs` once they reach it. */
export function doublingDelays(firstMs: number, maxMs: number): number[] {
  const delays: number[] = [];
  for (let delay = firstMs; delay < maxMs; delay *= 2) delays.push(delay);
  delays.push(maxMs);
  return delays;
}

/** Room for one more key: what is stale goes first, then the oldest (bounded memory). */
function makeRoom<Entry>(
  map: Map<string, Entry>,
  maxKeys: number,
  isStale: (entry: Entry) => boolean,
) {
  if (map.size < maxKeys) return;
  for (const [key, entry] of map) {
    if (isStale(entry)) map.delete(key);
  }
  // Still full of live entries: forget the oldest rather than grow without bound.
  if (map.size >= maxKeys) map.delete(map.keys().next().value!);
}

export function createMemoryRateLimitStore(options: { maxKeys?: number } = {}): RateLimitStore {
  const maxKeys = options.maxKeys ?? 100_000;
  const windows = new Map<string, { count: number; resetAt: number }>();
  const delays = new Map<string, { count: number; windowEnd: number; blockedUntil: number }>();
  return {
    async hit(key, windowMs, now) {
      let window = windows.get(key);
      if (window === undefined || window.resetAt <= now) {
        makeRoom(windows, maxKeys, (stale) => stale.resetAt <= now);
        window = { count: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetAt: window.resetAt };
    },
    async hitWithDelay(key, schedule, now) {
      let state = delays.get(key);
      if (state !== undefined && state.blockedUntil > now) {
        return { allowed: false, retryAt: state.blockedUntil };
      }
      if (state === undefined || state.windowEnd <= now) {
        delays.delete(key);
        makeRoom(delays, maxKeys, (stale) => stale.windowEnd <= now && stale.blockedUntil <= now);
        state = { count: 0, windowEnd: now + schedule.windowMs, blockedUntil: now };
        delays.set(key, state);
      }
      state.count += 1;
      state.blockedUntil = now + delayAfter(state.count, schedule);
      return { allowed: true };
    },
  };
}

export interface RateLimitRule {
  /** Namespaces the keys of one rule, e.g. 'login-address'. */
  name: string;
  max: number;
  windowMs: number;
}

/** A rule whose limit is a delay that grows, never a closed window (decision 0059). */
export interface ProgressiveRule extends DelaySchedule {
  /** Namespaces the keys of one rule, e.g. 'login-name'. */
  name: string;
}

export type RateLimitVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export function createRateLimiter(store: RateLimitStore, now: () => number = Date.now) {
  return {
    async check(rule: RateLimitRule, key: string): Promise<RateLimitVerdict> {
      const time = now();
      const { count, resetAt } = await store.hit(`${rule.name}:${key}`, rule.windowMs, time);
      if (count <= rule.max) return { allowed: true };
      return { allowed: false, retryAfterSeconds: secondsUntil(resetAt, time) };
    },
    /** One attempt under a progressive rule: refused while the delay the last one set holds. */
    async checkWithDelay(rule: ProgressiveRule, key: string): Promise<RateLimitVerdict> {
      const time = now();
      const verdict = await store.hitWithDelay(`${rule.name}:${key}`, rule, time);
      if (verdict.allowed) return { allowed: true };
      return { allowed: false, retryAfterSeconds: secondsUntil(verdict.retryAt, time) };
    },
  };
}

const secondsUntil = (time: number, now: number) => Math.max(1, Math.ceil((time - now) / 1000));

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * One account's request under `rule`, as every per-account route counts it: past the limit, a
 * 429 saying `Too many {what} for this account; try again in N seconds`, with `Retry-After`, and
 * one warning in the log (the account's id, never its name or token).
 */
export async function countForAccount(
  limiter: RateLimiter,
  rule: RateLimitRule,
  request: { log: { warn: (fields: object, message: string) => void } },
  userId: string,
  what: string,
): Promise<void> {
  const verdict = await limiter.check(rule, userId);
  if (verdict.allowed) return;
  request.log.warn({ userId, rule: rule.name }, `${rule.name} rate limit reached`);
  throw new HttpError(
    429,
    `Too many ${what} for this account; try again in ${verdict.retryAfterSeconds} seconds`,
    { 'retry-after': String(verdict.retryAfterSeconds) },
  );
}

/**
 * The sign-in limits (`LOGIN_ATTEMPTS_*`): attempts an address makes a minute, attempts that pass
 * before any delay, and the longest delay.
 */
export interface LoginLimitSettings {
  /** Every attempt from one address, whatever the names: a fixed window of a minute. */
  attemptsPerAddressPerMinute: number;
  attemptsPerNameIp: number;
  attemptsPerName: number;
  maxDelaySeconds: number;
}

const LOGIN_WINDOW_MS = 15 * 60_000;

/**
 * Login attempts (decisions 0059, 0065): a fixed window a minute per address, whatever the names,
 * wide enough for an office signing in behind one NAT address; per name
 * at one address, a few free attempts and then delays doubling from 1 s; per name from every
 * address, a ceiling one address cannot reach, with the same doubling past it. A guesser at one
 * address slows down there and never reaches the owner elsewhere; guessers at many addresses
 * meet the name's ceiling, a delay that ends, never a lock.
 */
export function loginRateLimits(settings: LoginLimitSettings) {
  const delaysMs = doublingDelays(1_000, settings.maxDelaySeconds * 1_000);
  return {
    perAddress: {
      name: 'login-address',
      max: settings.attemptsPerAddressPerMinute,
      windowMs: 60_000,
    },
    perNameAndAddress: {
      name: 'login-name-address',
      free: settings.attemptsPerNameIp,
      windowMs: LOGIN_WINDOW_MS,
      delaysMs,
    },
    perName: {
      name: 'login-name',
      free: settings.attemptsPerName,
      windowMs: LOGIN_WINDOW_MS,
      delaysMs,
    },
  } satisfies {
    perAddress: RateLimitRule;
    perNameAndAddress: ProgressiveRule;
    perName: ProgressiveRule;
  };
}

export type LoginRateLimits = ReturnType<typeof loginRateLimits>;

/**
 * Participant tokens per user (`TOKEN_RATE_LIMIT_PER_MINUTE`): a person opening streams, their
 * prefetches and reconnects stays well under it; one account cannot mint the seats of a stage.
 */
export function tokenRateLimit(perMinute: number): RateLimitRule {
  return { name: 'token-user', max: perMinute, windowMs: 60_000 };
}

/**
 * Thumbnails per user (`THUMBNAIL_RATE_LIMIT_PER_MINUTE`): an open /home asks for each of its
 * three cards every 10 s, or 3 s after an answer without a picture (60 a minute at most), so
 * two /home pages of one account stay within the default; thirty requests in parallel do not.
 */
export function thumbnailRateLimit(perMinute: number): RateLimitRule {
  return { name: 'thumbnail-user', max: perMinute, windowMs: 60_000 };
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

/**
 * WHEP offers (players' POSTs under /stage/whep/) per address, as for WHIP; sized for a room of
 * players behind one NAT address, each opening every stream and reconnecting (decision 0065).
 */
export function whepRateLimit(perMinute: number): RateLimitRule {
  return { name: 'whep-address', max: perMinute, windowMs: 60_000 };
}
