import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRateLimiter, LOGIN_RATE_LIMITS } from '../http/rate-limit';
import { build } from '../test/helpers';
import { migrate } from './migrations';
import { openPgliteClient } from './pglite-client';
import { createPostgresRateLimitStore } from './postgres-rate-limit-store';
import { openPostgresClient } from './postgres-client';
import type { SqlClient } from './sql-client';
import { useTemporarySchema } from '../test/postgres-schema';

const testDatabaseUrl = process.env.TEST_DATABASE_URL;

if (testDatabaseUrl === undefined) {
  console.warn(
    '\n!!! SKIPPED: the shared rate-limit store tests on PostgreSQL (TEST_DATABASE_URL is not set).\n' +
      '!!! Run them with: node scripts/with-postgres.mjs npm test -w server\n',
  );
}

const rule = { name: 'test', max: 2, windowMs: 60_000 };

/** The same behaviour as the in-memory store, whichever database is underneath. */
function describeStore(name: string, open: () => Promise<SqlClient>, instances: number) {
  describe(`rate-limit store on ${name}`, () => {
    const clients: SqlClient[] = [];

    beforeAll(async () => {
      for (let i = 0; i < instances; i += 1) clients.push(await open());
      await migrate(clients[0]!);
    });
    afterAll(async () => {
      for (const client of clients) await client.close();
    });

    it('allows max hits per window, then says how long to wait, per key', async () => {
      let now = 1_000_000;
      const limiter = createRateLimiter(createPostgresRateLimitStore(clients[0]!), () => now);
      expect(await limiter.check(rule, 'a')).toEqual({ allowed: true });
      expect(await limiter.check(rule, 'a')).toEqual({ allowed: true });
      now += 15_000;
      expect(await limiter.check(rule, 'a')).toEqual({ allowed: false, retryAfterSeconds: 45 });
      expect(await limiter.check(rule, 'b')).toEqual({ allowed: true });
      now += 45_000;
      expect(await limiter.check(rule, 'a')).toEqual({ allowed: true });
    });

    it('counts every concurrent hit exactly once, across instances', async () => {
      const stores = clients.map((client) => createPostgresRateLimitStore(client));
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => stores[i % stores.length]!.hit('burst', 60_000, 5)),
      );
      expect(results.map((result) => result.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      expect(new Set(results.map((result) => result.resetAt))).toEqual(new Set([60_005]));
    });

    it('deletes windows that ended long ago', async () => {
      const store = createPostgresRateLimitStore(clients[0]!);
      await store.hit('old', 60_000, 10);
      await store.hit('new', 60_000, 10 + 2 * 60 * 60_000);
      const { rows } = await clients[0]!.query<{ key: string }>(
        "SELECT key FROM rate_limits WHERE key IN ('old', 'new')",
      );
      expect(rows.map((row) => row.key)).toEqual(['new']);
    });
  });
}

// From the migrated dump global setup caches (decision 0014): no initdb.
describeStore(
  'PGlite',
  () =>
    openPgliteClient(undefined, {
      loadDataDir: new Blob([readFileSync(inject('pgliteDump'))]),
    }),
  1,
);

describe.skipIf(testDatabaseUrl === undefined)('PostgreSQL', () => {
  const schema = useTemporarySchema(testDatabaseUrl!);

  // Two pools stand for two API instances behind a load balancer.
  describeStore(
    'PostgreSQL',
    async () => openPostgresClient({ connectionString: testDatabaseUrl!, schema, max: 4 }),
    2,
  );

  it('makes two API instances share the per-username login limit', async () => {
    const clients = [0, 1].map(() =>
      openPostgresClient({ connectionString: testDatabaseUrl!, schema, max: 2 }),
    );
    try {
      await migrate(clients[0]!);
      const apps = await Promise.all(
        clients.map(async (client) => {
          const { app } = await build({
            deps: { rateLimitStore: createPostgresRateLimitStore(client) },
          });
          return app;
        }),
      );
      const attempt = (i: number) =>
        apps[i % 2]!.inject({
          method: 'POST',
          url: '/api/login',
          payload: { username: 'shared-victim', password: 'wrong' },
        });
      for (let i = 0; i < LOGIN_RATE_LIMITS.perUsername.max; i += 1) {
        expect((await attempt(i)).statusCode).toBe(401);
      }
      const refused = await attempt(LOGIN_RATE_LIMITS.perUsername.max);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    } finally {
      for (const client of clients) await client.close();
    }
  });
});
