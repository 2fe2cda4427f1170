/**
 * The rate-limit windows and delays in PostgreSQL, so that every instance behind a load balancer
 * counts against the same ones (decisions 0030 and 0059). One atomic upsert per hit: concurrent
 * hits on one key serialise on the row lock, so none is lost and no delay is skipped.
 */
import type { RateLimitStore } from '../http/rate-limit';
import type { SqlQuery } from './sql-client';

const HIT_SQL = `
  INSERT INTO rate_limits AS r (key, window_start, count) VALUES ($1, $2::bigint, 1)
  ON CONFLICT (key) DO UPDATE SET
    window_start = CASE WHEN r.window_start <= $2::bigint - $3::bigint THEN $2::bigint ELSE r.window_start END,
    count = CASE WHEN r.window_start <= $2::bigint - $3::bigint THEN 1 ELSE r.count + 1 END
  RETURNING window_start, count`;

/**
 * `delayAfter` (http/rate-limit.ts) in SQL: $4 the free attempts, $5 the delays. An index below
 * 1 (an attempt within the free ones) reads NULL, hence no delay.
 */
const delayAfterSql = (count: string) =>
  `COALESCE(($5::bigint[])[LEAST(${count} - $4::integer + 1, cardinality($5::bigint[]))], 0)`;

/**
 * Params: $1 key, $2 now, $3 window length, $4 free attempts, $5 delays. SET reads the row as it
 * was: an attempt while its delay holds changes nothing but the verdict; otherwise the count goes
 * up (from 1 in a new window) and sets the next delay.
 */
const HIT_WITH_DELAY_SQL = `
  INSERT INTO rate_limit_delays AS d (key, window_end, count, blocked_until, allowed)
  VALUES ($1, $2::bigint + $3::bigint, 1, $2::bigint + ${delayAfterSql('1')}, true)
  ON CONFLICT (key) DO UPDATE SET
    window_end = CASE
      WHEN d.blocked_until > $2::bigint OR d.window_end > $2::bigint THEN d.window_end
      ELSE $2::bigint + $3::bigint END,
    count = CASE
      WHEN d.blocked_until > $2::bigint THEN d.count
      WHEN d.window_end > $2::bigint THEN d.count + 1
      ELSE 1 END,
    blocked_until = CASE
      WHEN d.blocked_until > $2::bigint THEN d.blocked_until
      WHEN d.window_end > $2::bigint THEN $2::bigint + ${delayAfterSql('(d.count + 1)')}
      ELSE $2::bigint + ${delayAfterSql('1')} END,
    allowed = d.blocked_until <= $2::bigint
  RETURNING allowed, blocked_until`;

/** Windows older than this are deleted; longer than any rule's window. */
const KEEP_MS = 60 * 60_000;
const PRUNE_EVERY_MS = 60_000;

export function createPostgresRateLimitStore(client: SqlQuery): RateLimitStore {
  let lastPrune = 0;
  const pruneIfDue = async (now: number) => {
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    await client.query('DELETE FROM rate_limits WHERE window_start < $1', [now - KEEP_MS]);
    // A row whose window has ended and whose delay is over counts for nothing any more.
    await client.query(
      'DELETE FROM rate_limit_delays WHERE window_end <= $1 AND blocked_until <= $1',
      [now],
    );
  };
  return {
    async hit(key, windowMs, now) {
      const { rows } = await client.query<{ window_start: string | number; count: number }>(
        HIT_SQL,
        [key, now, windowMs],
      );
      const row = rows[0];
      if (row === undefined) throw new Error('rate limit upsert returned no row');
      await pruneIfDue(now);
      return { count: Number(row.count), resetAt: Number(row.window_start) + windowMs };
    },
    async hitWithDelay(key, schedule, now) {
      const { rows } = await client.query<{ allowed: boolean; blocked_until: string | number }>(
        HIT_WITH_DELAY_SQL,
        [key, now, schedule.windowMs, schedule.free, [...schedule.delaysMs]],
      );
      const row = rows[0];
      if (row === undefined) throw new Error('rate limit delay upsert returned no row');
      await pruneIfDue(now);
      return row.allowed
        ? { allowed: true }
        : { allowed: false, retryAt: Number(row.blocked_until) };
    },
  };
}
