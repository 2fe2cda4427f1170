import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRateLimiter } from '../http/rate-limit';
import { build, type TestApp } from '../test/helpers';
import { migrate } from './migrations';
import { openPgliteClient } from './pglite-client';
import { createPostgresRateLimitStore } from './postgres-rate-limit-store';
import { openPostgresClient } from './postgres-client';
import type { SqlClient } from './sql-client';
import { useTemporarySchema } from '../test/postgres-schema';
import { delayContract } from '../test/rate-limit-store-contract';

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

    delayContract(async () => createPostgresRateLimitStore(clients[0]!));

    it('lets exactly the free attempts through concurrent ones across instances', async () => {
      const stores = clients.map((client) => createPostgresRateLimitStore(client));
      const schedule = { free: 10, windowMs: 60_000, delaysMs: [1_000, 2_000] };
      const verdicts = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          stores[i % stores.length]!.hitWithDelay('delay-burst', schedule, 7_000),
        ),
      );
      expect(verdicts.filter((verdict) => verdict.allowed)).toHaveLength(10);
      expect(
        new Set(verdicts.filter((verdict) => !verdict.allowed).map((v) => JSON.stringify(v))),
      ).toEqual(new Set([JSON.stringify({ allowed: false, retryAt: 8_000 })]));
    });

    it('deletes delays whose window and delay are over', async () => {
      const store = createPostgresRateLimitStore(clients[0]!);
      const schedule = { free: 1, windowMs: 60_000, delaysMs: [1_000] };
      await store.hitWithDelay('delay-old', schedule, 10);
      await store.hitWithDelay('delay-new', schedule, 10 + 2 * 60_000);
      const { rows } = await clients[0]!.query<{ key: string }>(
        "SELECT key FROM rate_limit_delays WHERE key IN ('delay-old', 'delay-new')",
      );
      expect(rows.map((row) => row.key)).toEqual(['delay-new']);
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

  it('makes two API instances share the login delays; the owner elsewhere gets in', async () => {
    const clients = [0, 1].map(() =>
      openPostgresClient({ connectionString: testDatabaseUrl!, schema, max: 2 }),
    );
    try {
      await migrate(clients[0]!);
      // One after the other: each build empties the file's one user store, which both share.
      const apps: TestApp[] = [];
      for (const client of clients) {
        apps.push(await build({ deps: { rateLimitStore: createPostgresRateLimitStore(client) } }));
      }
      await apps[1]!.addUser('shared-victim', 'correct horse');
      const attempt = (i: number, password: string, remoteAddress = '203.0.113.5') =>
        apps[i % 2]!.app.inject({
          method: 'POST',
          url: '/api/login',
          remoteAddress,
          payload: { username: 'shared-victim', password },
        });
      for (let i = 0; i < 10; i += 1) expect((await attempt(i, 'wrong')).statusCode).toBe(401);
      for (const i of [10, 11]) {
        const refused = await attempt(i, 'wrong');
        expect(refused.statusCode).toBe(429);
        expect(refused.headers['retry-after']).toBe('1');
      }
      expect((await attempt(0, 'correct horse', '198.51.100.9')).statusCode).toBe(200);
      expect((await attempt(1, 'correct horse', '198.51.100.9')).statusCode).toBe(200);
    } finally {
      for (const client of clients) await client.close();
    }
  });
});
