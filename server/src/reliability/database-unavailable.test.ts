/**
 * The database gone: sign-in and participant tokens answer a clear 503 `{error}` a client can
 * retry (not a 500), readiness says 503, liveness stays up. The end-to-end version, with a real
 * PostgreSQL stopped and started again, is in e2e/faults.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable } from '../db/database-errors';
import { openPostgresClient } from '../db/postgres-client';
import { createUserStore } from '../db/user-store';
import { build, CLIENT_ID } from '../test/helpers';

describe('a database that cannot be reached', () => {
  it('makes sign-in and token requests answer 503 with a JSON {error}, and readiness 503', async () => {
    const signedIn = await build();
    await signedIn.addUser('alice', 'correct horse');
    const loginToken = await signedIn.login('alice', 'correct horse');

    // Nothing listens on port 1: every query fails as with a stopped PostgreSQL.
    const client = openPostgresClient({ connectionString: 'postgresql://tailcam@127.0.0.1:1/x' });
    try {
      const { app } = await build({ deps: { store: createUserStore(client) } });
      const login = await app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { username: 'alice', password: 'correct horse' },
      });
      expect(login.statusCode).toBe(503);
      expect(login.json()).toEqual({ error: DATABASE_UNAVAILABLE });
      expect(login.headers['content-type']).toMatch(/^application\/json/);
      expect(login.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);

      const token = await app.inject({
        method: 'POST',
        url: '/api/token',
        headers: { authorization: `Bearer ${loginToken}` },
        payload: { stageId: 'N743AS', clientId: CLIENT_ID },
      });
      expect(token.statusCode).toBe(503);
      expect(token.json()).toEqual({ error: DATABASE_UNAVAILABLE });

      expect((await app.inject({ url: '/api/ready' })).statusCode).toBe(503);
      expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
    } finally {
      await client.close();
    }
  });

  it('tells an unreachable database from a bug', () => {
    const withCode = (code: string) => Object.assign(new Error('x'), { code });
    for (const unavailable of [
      withCode('ECONNREFUSED'),
      Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' }),
      withCode('57P01'), // terminating connection due to administrator command
      withCode('57P03'), // the database system is starting up
      withCode('08006'),
      withCode('53300'), // too many connections
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('PGlite is closed'),
    ]) {
      expect(isDatabaseUnavailable(unavailable), String(unavailable)).toBe(true);
    }
    for (const bug of [
      new Error('boom'),
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      withCode('23505'), // unique violation
      withCode('42P01'), // undefined table
      withCode('FST_ERR_VALIDATION'),
      undefined,
      'ECONNREFUSED',
    ]) {
      expect(isDatabaseUnavailable(bug), String(bug)).toBe(false);
    }
  });
});
