/**
 * Nobody can lock a chosen user out by guessing at their name (decision 0059): over
 * real sockets from several loopback addresses (the whole of 127/8 reaches loopback on Linux), so
 * the server sees each client's own `request.ip`. A fake clock drives the doubling delays.
 */
import { request } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { PasswordVerifier } from '../auth/passwords';
import { migrate } from '../db/migrations';
import { createPostgresRateLimitStore } from '../db/postgres-rate-limit-store';
import { openPostgresClient } from '../db/postgres-client';
import { createMemoryRateLimitStore, type RateLimitStore } from '../http/rate-limit';
import { build } from '../test/helpers';
import { temporarySchemaForTest } from '../test/postgres-schema';
import { listenOnLoopback } from '../test/raw-http';

const PASSWORD = 'correct horse battery staple';
/** argon2 is not what is under test: the limits are about counting, so checks are instant. */
const fastPasswords: PasswordVerifier = {
  verify: async (passwordHash, password) => passwordHash !== undefined && password === PASSWORD,
};

const ATTACKER = '127.0.0.2';
const OWNER = '127.0.0.3';

interface Answer {
  status: number;
  retryAfter: number | undefined;
  error: string | undefined;
}

/** One sign-in over its own connection from `from` (a loopback address). */
function signIn(port: number, from: string, username: string, password: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        localAddress: from,
        agent: false,
        method: 'POST',
        path: '/api/login',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            const retryAfter = res.headers['retry-after'];
            resolve({
              status: res.statusCode ?? 0,
              retryAfter: retryAfter === undefined ? undefined : Number(retryAfter),
              error:
                typeof body === 'object' && body !== null && 'error' in body
                  ? String(body.error)
                  : undefined,
            });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ username, password }));
  });
}

const waitMessage = (seconds: number) =>
  `Too many sign-in attempts; try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;

function describeLockout(storeName: string, openStore: () => Promise<RateLimitStore>) {
  describe(`a chosen user cannot be locked out (${storeName} store)`, () => {
    async function listening() {
      let now = new Date('2026-11-26T09:00:00Z');
      const { app, addUser } = await build({
        deps: { passwords: fastPasswords, now: () => now, rateLimitStore: await openStore() },
      });
      await addUser('alice', PASSWORD);
      await addUser('bob', PASSWORD);
      const port = await listenOnLoopback(app);
      return {
        from: (address: string, username: string, password: string) =>
          signIn(port, address, username, password),
        advanceSeconds: (seconds: number) => {
          now = new Date(now.getTime() + seconds * 1000);
        },
      };
    }

    it('slows a guesser at one address by a doubling Retry-After while the owner at another signs in', async () => {
      const { from, advanceSeconds } = await listening();
      for (let guess = 0; guess < 10; guess += 1) {
        expect((await from(ATTACKER, 'alice', `guess ${guess}`)).status).toBe(401);
      }
      // The owner, at another address, is not held back by them...
      expect((await from(OWNER, 'alice', PASSWORD)).status).toBe(200);
      // ...while the delay binds the name at the guesser's address whatever the password.
      expect(await from(ATTACKER, 'alice', PASSWORD)).toEqual({
        status: 429,
        retryAfter: 1,
        error: waitMessage(1),
      });
      for (const seconds of [1, 2, 4, 8, 16, 32, 60, 60]) {
        expect(await from(ATTACKER, 'ALICE', 'another guess')).toEqual({
          status: 429,
          retryAfter: seconds,
          error: waitMessage(seconds),
        });
        expect((await from(OWNER, 'alice', PASSWORD)).status).toBe(200);
        // Waiting exactly as long as asked buys one guess, no more.
        advanceSeconds(seconds);
        expect((await from(ATTACKER, 'alice', 'a patient guess')).status).toBe(401);
      }
      expect((await from(ATTACKER, 'bob', PASSWORD)).status).toBe(200);
    });

    it('holds a ceiling per name across addresses, as a doubling delay that ends', async () => {
      const { from, advanceSeconds } = await listening();
      // 10 addresses, 10 guesses each: each address's own allowance, 100 for the name in all.
      const spread = Array.from({ length: 10 }, (_, index) => `127.0.0.${10 + index}`);
      const guesses = await Promise.all(
        spread.flatMap((address) =>
          Array.from({ length: 10 }, (_, guess) => from(address, 'alice', `guess ${guess}`)),
        ),
      );
      expect(guesses.map((answer) => answer.status)).toEqual(Array(100).fill(401));
      // The name's ceiling now binds every address, the owner's too, with the same doubling.
      expect(await from('127.0.0.30', 'alice', 'a fresh address')).toEqual({
        status: 429,
        retryAfter: 1,
        error: waitMessage(1),
      });
      expect((await from(OWNER, 'alice', PASSWORD)).retryAfter).toBe(1);
      for (const [round, seconds] of [1, 2, 4, 8].entries()) {
        advanceSeconds(seconds);
        expect((await from(`127.0.0.${31 + round}`, 'alice', 'one more')).status).toBe(401);
        expect((await from(`127.0.0.${41 + round}`, 'alice', 'and another')).retryAfter).toBe(
          seconds * 2,
        );
      }
      // Another name is untouched, and the ceiling lifts once its window has passed.
      expect((await from('127.0.0.30', 'bob', PASSWORD)).status).toBe(200);
      advanceSeconds(15 * 60);
      expect((await from(OWNER, 'alice', PASSWORD)).status).toBe(200);
    });
  });
}

describeLockout('memory', async () => createMemoryRateLimitStore());

const testDatabaseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(testDatabaseUrl === undefined)('PostgreSQL', () => {
  describeLockout('PostgreSQL', async () => {
    // A schema of the test's own: it starts from no counts, as a fresh memory store does.
    const { schema } = await temporarySchemaForTest(testDatabaseUrl!);
    const client = openPostgresClient({ connectionString: testDatabaseUrl!, schema, max: 2 });
    onTestFinished(() => client.close());
    await migrate(client);
    return createPostgresRateLimitStore(client);
  });
});
