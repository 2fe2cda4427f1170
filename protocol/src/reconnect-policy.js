// The one backoff shape of the repo: the player's reconnects, the local SDK's join loop and the
// start script's restarts each ask a policy how long to wait before the next attempt, or whether
// to stop. Plain JavaScript with its types beside it (reconnect-policy.d.ts), because
// scripts/start.mjs runs under plain Node with no TypeScript loader.

/**
 * @param {import('./reconnect-policy').BackoffOptions} options
 * @returns {import('./reconnect-policy').ReconnectPolicy}
 */
export function backoffPolicy(options) {
  const {
    immediateFirst = false,
    baseMs,
    factor,
    maxMs,
    maxAttempts = Number.POSITIVE_INFINITY,
    jitter = 0,
    random = Math.random,
  } = options;
  for (const [name, value] of Object.entries({ baseMs, factor, maxMs, jitter })) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`backoffPolicy: ${name} must be a number of 0 or more, not ${value}`);
    }
  }
  if (!(maxAttempts >= 0)) {
    throw new RangeError(`backoffPolicy: maxAttempts must be 0 or more, not ${maxAttempts}`);
  }
  return {
    nextDelayMs(attempt) {
      if (attempt > maxAttempts) return null;
      if (immediateFirst && attempt <= 1) return 0;
      const step = Math.max(0, attempt - (immediateFirst ? 2 : 1));
      const delay = Math.min(maxMs, baseMs * factor ** step);
      // Longer by up to `jitter` of itself, never shorter: the schedule stays a lower bound.
      return delay * (1 + jitter * random());
    },
  };
}
