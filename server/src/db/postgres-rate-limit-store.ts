/**
 * The login rate-limit windows in PostgreSQL, so that every instance behind a load balancer
 * counts against the same windows (decision 0030). One atomic upsert per hit: the row's window
 * restarts when it has ended, otherwise its count goes up; concurrent hits on one key serialise
 * on the row lock, so none is lost.
 */
import type { RateLimitStore } from '../http/rate-limit';
import type { SqlQuery } from './sql-client';

const HIT_SQL = `
  INSERT INTO rate_limits AS r (key, window_start, count) VALUES ($1, $2::bigint, 1)
  ON CONFLICT (key) DO UPDATE SET
    window_start = CASE WHEN r.window_start <= $2::bigint - $3::bigint THEN $2::bigint ELSE r.window_start END,
    count = CASE WHEN r.window_start <= $2::bigint - $3::bigint THEN 1 ELSE r.count + 1 END
  RETURNING window_start, count`;

/** Windows older than this are deleted; longer than any rule's window. */
const KEEP_MS = 60 * 60_000;
const PRUNE_EVERY_MS = 60_000;

export function createPostgresRateLimitStore(client: SqlQuery): RateLimitStore {
  let lastPrune = 0;
  return {
    async hit(key, windowMs, now) {
      const { rows } = await client.query<{ window_start: string | number; count: number }>(
        HIT_SQL,
        [key, now, windowMs],
      );
      const row = rows[0];
      if (row === undefined) throw new Error('rate limit upsert returned no row');
      if (now - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = now;
        await client.query('DELETE FROM rate_limits WHERE window_start < $1', [now - KEEP_MS]);
      }
      return { count: Number(row.count), resetAt: Number(row.window_start) + windowMs };
    },
  };
}
