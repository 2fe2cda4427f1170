import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { build, CLIENT_ID } from '../test/helpers';
import { openMigratedStore } from './open-store';
import { migrate } from './migrations';
import { openPgliteClient } from './pglite-client';
import { openPostgresClient } from './postgres-client';
import type { SqlClient } from './sql-client';
import { createUserStore, DuplicateUsernameError, type UserStore } from './user-store';
import { useTemporarySchema } from '../test/postgres-schema';

const testDatabaseUrl = process.env.TEST_DATABASE_URL;

if (testDatabaseUrl === undefined) {
  console.warn(
    '\n!!! SKIPPED: the PostgreSQL user store tests (TEST_DATABASE_URL is not set).\n' +
      '!!! Run them with: node scripts/with-postgres.mjs npm test -w server\n',
  );
}

/** The same behaviour, whichever driver is underneath. */
function describeUserStore(name: string, open: () => Promise<SqlClient>) {
  describe(`user store on ${name}`, () => {
    let client: SqlClient;
    let store: UserStore;

    beforeAll(async () => {
      client = await open();
      await migrate(client);
      store = createUserStore(client);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('migrates idempotently', async () => {
      expect(await migrate(client)).toEqual([]);
    });

    it('creates a user and finds it by name regardless of case, and by id', async () => {
      const created = await store.createUser('Carol', 'hash-1');
      expect(created).toMatchObject({ username: 'Carol', disabledAt: null });
      expect(created.createdAt).toBeInstanceOf(Date);
      expect(await store.findByUsername('cAROL')).toMatchObject({
        id: created.id,
        username: 'Carol',
        passwordHash: 'hash-1',
      });
      expect(await store.findById(created.id)).toMatchObject({ username: 'Carol' });
    });

    it('refuses a second user whose name differs only in case', async () => {
      await store.createUser('dave', 'hash');
      await expect(store.createUser('DAVE', 'hash')).rejects.toBeInstanceOf(DuplicateUsernameError);
    });

    it('finds nobody for unknown names and for ids that are not UUIDs', async () => {
      expect(await store.findByUsername('nobody')).toBeUndefined();
      expect(await store.findById('00000000-0000-4000-8000-000000000000')).toBeUndefined();
      expect(await store.findById("1' OR '1'='1")).toBeUndefined();
    });

    it('changes a password and disables a user, reporting unknown names', async () => {
      await store.createUser('erin', 'old');
      expect(await store.setPasswordHash('ERIN', 'new')).toBe(true);
      expect((await store.findByUsername('erin'))?.passwordHash).toBe('new');
      expect(await store.disableUser('erin')).toBe(true);
      const disabledAt = (await store.findByUsername('erin'))?.disabledAt;
      expect(disabledAt).toBeInstanceOf(Date);
      expect(await store.disableUser('erin')).toBe(true);
      expect((await store.findByUsername('erin'))?.disabledAt).toEqual(disabledAt);
      expect(await store.setPasswordHash('nobody', 'x')).toBe(false);
      expect(await store.disableUser('nobody')).toBe(false);
    });

    it('lists and counts users in name order', async () => {
      const names = (await store.listUsers()).map((user) => user.username);
      expect(names).toEqual(
        [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
      );
      expect(await store.countUsers()).toBe(names.length);
      await store.ping();
    });
  });
}

describeUserStore('PGlite', () => openPgliteClient(undefined));

describe.skipIf(testDatabaseUrl === undefined)('PostgreSQL', () => {
  const schema = useTemporarySchema(testDatabaseUrl!);

  describeUserStore('PostgreSQL', async () =>
    openPostgresClient({ connectionString: testDatabaseUrl!, schema, max: 4 }),
  );

  it('serves sign-in and participant tokens with the accounts in PostgreSQL', async () => {
    const store = await openMigratedStore(
      openPostgresClient({ connectionString: testDatabaseUrl!, schema, max: 4 }),
    );
    onTestFinished(() => store.close());
    const { app, addUser, login } = await build({ deps: { store } });
    await addUser('frank', 'correct horse');
    const token = await login('FRANK', 'correct horse');
    const response = await app.inject({
      method: 'POST',
      url: '/api/token',
      headers: { authorization: `Bearer ${token}` },
      payload: { stageId: 'N743AS', clientId: CLIENT_ID },
    });
    expect(response.statusCode).toBe(200);
    expect((await app.inject({ url: '/api/ready' })).statusCode).toBe(200);
  });
});
