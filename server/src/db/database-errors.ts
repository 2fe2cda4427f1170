/**
 * Tells a database that cannot be reached (PostgreSQL stopped, restarting, unreachable, out of
 * connections; PGlite closed) from a bug, so that the API answers those with a 503 a client can
 * retry, instead of a 500.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P01-57P03 (shutdown). */
const SQLSTATE_UNAVAILABLE = /^(08|53|57P0[123])/;

/** node-postgres and PGlite say these in words only, without a code. */
const MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^PGlite is closed/,
];

export const DATABASE_UNAVAILABLE = 'The account database is unavailable; try again in a moment';

export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error ? error.code : undefined;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE_UNAVAILABLE.test(code))) {
    return true;
  }
  const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
  return MESSAGES.some((pattern) => pattern.test(message));
}
