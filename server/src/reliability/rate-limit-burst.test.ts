/**
 * The login rate limit under a bounded burst of concurrent guesses: it holds (a 429 with
 * Retry-After for everything over the limit, never more successes than allowed), and it does not
 * lock out anyone else (another username, another address).
 */
import { describe, expect, it } from 'vitest';
import type { PasswordVerifier } from '../auth/passwords';
import { build } from '../test/helpers';

const PASSWORD = 'correct horse battery staple';
/** argon2 is not what is under test: the burst is about counting, so checks are instant. */
const fastPasswords: PasswordVerifier = {
  verify: async (passwordHash, password) => passwordHash !== undefined && password === PASSWORD,
};

const BURST = 200;

describe('the login rate limit under a burst', () => {
  it(`holds for ${BURST} concurrent guesses at one account from one address, then lets others in`, async () => {
    const { app, addUser } = await build({ deps: { passwords: fastPasswords } });
    await addUser('alice', PASSWORD);
    await addUser('bob', PASSWORD);
    const guesses = await Promise.all(
      Array.from({ length: BURST }, (_, index) =>
        app.inject({
          method: 'POST',
          url: '/api/login',
          remoteAddress: '203.0.113.7',
          payload: { username: index % 2 === 0 ? 'alice' : 'ALICE', password: `guess ${index}` },
        }),
      ),
    );
    const byStatus = new Map<number, number>();
    for (const response of guesses) {
      byStatus.set(response.statusCode, (byStatus.get(response.statusCode) ?? 0) + 1);
    }
    // Exactly the per-username allowance reached the password check; the rest were refused.
    expect(Object.fromEntries(byStatus)).toEqual({ 401: 10, 429: BURST - 10 });
    for (const response of guesses.filter((r) => r.statusCode === 429)) {
      const retryAfter = Number(response.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(response.json()).toEqual({
        error: `Too many sign-in attempts; try again in ${retryAfter} seconds`,
      });
    }
    // Even the right password is refused while the window is full...
    const right = await app.inject({
      method: 'POST',
      url: '/api/login',
      remoteAddress: '198.51.100.1',
      payload: { username: 'alice', password: PASSWORD },
    });
    expect(right.statusCode).toBe(429);
    // ...but bob, from another address, is not locked out by the burst at alice.
    const other = await app.inject({
      method: 'POST',
      url: '/api/login',
      remoteAddress: '198.51.100.2',
      payload: { username: 'bob', password: PASSWORD },
    });
    expect(other.statusCode).toBe(200);
  });

  it('a burst from one address across many usernames stops that address only', async () => {
    const { app, addUser } = await build({ deps: { passwords: fastPasswords } });
    await addUser('alice', PASSWORD);
    const guesses = await Promise.all(
      Array.from({ length: BURST }, (_, index) =>
        app.inject({
          method: 'POST',
          url: '/api/login',
          remoteAddress: '203.0.113.9',
          payload: { username: `user${index}`, password: 'guess' },
        }),
      ),
    );
    const statuses = guesses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 401)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(BURST - 30);
    // The attacking address is refused even for a real account...
    const fromAttacker = await app.inject({
      method: 'POST',
      url: '/api/login',
      remoteAddress: '203.0.113.9',
      payload: { username: 'alice', password: PASSWORD },
    });
    expect(fromAttacker.statusCode).toBe(429);
    // ...and alice from her own address gets in: her username's window holds one attempt, now two.
    const alice = await app.inject({
      method: 'POST',
      url: '/api/login',
      remoteAddress: '192.0.2.10',
      payload: { username: 'alice', password: PASSWORD },
    });
    expect(alice.statusCode).toBe(200);
  });

  it('a burst spread over many addresses at one account stops at the per-username limit', async () => {
    const { app, addUser } = await build({ deps: { passwords: fastPasswords } });
    await addUser('alice', PASSWORD);
    await addUser('bob', PASSWORD);
    const guesses = await Promise.all(
      Array.from({ length: BURST }, (_, index) =>
        app.inject({
          method: 'POST',
          url: '/api/login',
          remoteAddress: `10.0.${Math.floor(index / 250)}.${index % 250}`,
          payload: { username: 'alice', password: `guess ${index}` },
        }),
      ),
    );
    expect(guesses.filter((response) => response.statusCode === 401)).toHaveLength(10);
    expect(guesses.filter((response) => response.statusCode === 429)).toHaveLength(BURST - 10);
    const bob = await app.inject({
      method: 'POST',
      url: '/api/login',
      remoteAddress: '10.0.0.1',
      payload: { username: 'bob', password: PASSWORD },
    });
    expect(bob.statusCode).toBe(200);
  });
});
