/** What a retry loop asks before each attempt: how long to wait, or null to stop. */
export interface ReconnectPolicy {
  /** `attempt` is 1-based: the attempt about to be made. */
  nextDelayMs(attempt: number): number | null;
}

export interface BackoffOptions {
  /** The first attempt goes at once (and is never jittered); the growth starts at the second. */
  immediateFirst?: boolean;
  baseMs: number;
  factor: number;
  maxMs: number;
  /** After this many attempts the policy says stop (null). Unbounded by default. */
  maxAttempts?: number;
  /** Each wait is made up to this fraction longer, at random (0.25: up to a quarter). */
  jitter?: number;
  /** For tests: a deterministic stand-in for Math.random. */
  random?: () => number;
}

/** A policy without `maxAttempts`: it never says stop. */
export interface EndlessReconnectPolicy extends ReconnectPolicy {
  nextDelayMs(attempt: number): number;
}

/** `baseMs · factor^k`, capped at `maxMs`, then up to `jitter` longer; null after `maxAttempts`. */
export function backoffPolicy(
  options: BackoffOptions & { maxAttempts?: undefined },
): EndlessReconnectPolicy;
export function backoffPolicy(options: BackoffOptions): ReconnectPolicy;
