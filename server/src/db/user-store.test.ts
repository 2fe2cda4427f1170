import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { build, CLIENT_ID } from '../test/helpers';
import { openMigratedStore } from './open-store';
import { migrate, migrations } from './migrations';
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

    it('compares one canonical form: no look-alike outside the username grammar matches', async () => {
      const created = await store.createUser('PiTester', 'hash');
      expect((await store.findByUsername('pitester'))?.id).toBe(created.id);
      for (const lookAlike of [
        'p\u0130tester',
        'P\u0130TESTER',
        'p\u0131tester',
        'pitester\u212a',
      ]) {
        expect(await store.findByUsername(lookAlike), lookAlike).toBeUndefined();
        expect(await store.setPasswordHash(lookAlike, 'x'), lookAlike).toBeUndefined();
        expect(await store.disableUser(lookAlike), lookAlike).toBeUndefined();
        expect(await store.removeUser(lookAlike), lookAlike).toBeUndefined();
      }
      await expect(store.createUser('p\u0130tester', 'hash')).rejects.toThrow(
        /not a valid username/,
      );
    });

    it('counts a generation per user that every password change, disable and removal ends', async () => {
      const created = await store.createUser('gina', 'hash');
      expect(created.tokenGeneration).toBe(0);
      const other = await store.createUser('hal', 'hash');
      const userId = created.id;
      expect(await store.setPasswordHash('GINA', 'new')).toEqual({ userId, tokenGeneration: 1 });
      expect((await store.findById(created.id))?.tokenGeneration).toBe(1);
      expect(await store.disableUser('gina')).toEqual({ userId, tokenGeneration: 2 });
      expect((await store.findByUsername('gina'))?.tokenGeneration).toBe(2);
      expect(await store.listTokenGenerations()).toMatchObject({ [userId]: 2, [other.id]: 0 });
      // One above the removed row's: no token of the removed user is of the current generation.
      expect(await store.removeUser('Gina')).toEqual({ userId, tokenGeneration: 3 });
      expect(await store.findById(created.id)).toBeUndefined();
      expect(await store.removeUser('gina')).toBeUndefined();
      const left = await store.listTokenGenerations();
      expect(left[other.id]).toBe(0);
      expect(userId in left).toBe(false);
    });

    it('finds nobody for unknown names and for ids that are not UUIDs', async () => {
      expect(await store.findByUsername('nobody')).toBeUndefined();
      expect(await store.findById('00000000-0000-4000-8000-000000000000')).toBeUndefined();
      expect(await store.findById("1' OR '1'='1")).toBeUndefined();
    });

    it('changes a password and disables a user, reporting unknown names', async () => {
      await store.createUser('erin', 'old');
      const erin = (await store.findByUsername('erin'))!.id;
      expect((await store.setPasswordHash('ERIN', 'new'))?.userId).toBe(erin);
      expect((await store.findByUsername('erin'))?.passwordHash).toBe('new');
      expect((await store.disableUser('erin'))?.userId).toBe(erin);
      const disabledAt = (await store.findByUsername('erin'))?.disabledAt;
      expect(disabledAt).toBeInstanceOf(Date);
      expect(await store.disableUser('erin')).toEqual({ userId: erin, tokenGeneration: 3 });
      expect((await store.findByUsername('erin'))?.disabledAt).toEqual(disabledAt);
      expect(await store.setPasswordHash('nobody', 'x')).toBeUndefined();
      expect(await store.disableUser('nobody')).toBeUndefined();
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

it('keeps the accounts made before names had a canonical column: found by any case, generation 0', async () => {
  // The migrated test database, its users table taken back to migration 2 (initdb is slow); the
  // migrations after 3 touch other tables.
  const client = await openPgliteClient(undefined, {
    loadDataDir: new Blob([readFileSync(inject('pgliteDump'))]),
  });
  onTestFinished(() => client.close());
  expect(
    migrations.filter((migration) => migration.version > 3).map((migration) => migration.name),
  ).toEqual(['rate_limit_delays']);
  for (const statement of [
    'DROP INDEX users_username_key_key',
    'ALTER TABLE users DROP COLUMN username_key',
    'ALTER TABLE users DROP COLUMN token_generation',
    'CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username))',
    'DELETE FROM schema_migrations WHERE version = 3',
  ]) {
    await client.query(statement);
  }
  await client.query(
    "INSERT INTO users (id, username, password_hash) VALUES ('3dc3aed5-73e3-4236-9dd0-f15c25193cf5', 'Old.Timer', 'hash')",
  );
  expect(await migrate(client)).toEqual([3]);
  const store = createUserStore(client);
  expect(await store.findByUsername('old.timer')).toMatchObject({
    username: 'Old.Timer',
    tokenGeneration: 0,
  });
  await expect(store.createUser('OLD.TIMER', 'hash')).rejects.toBeInstanceOf(
    DuplicateUsernameError,
  );
});

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
