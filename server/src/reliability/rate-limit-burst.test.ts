/**
 * The login rate limit under a bounded burst of concurrent guesses: it holds (a 429 with
 * Retry-After for everything over the limit, never more guesses than allowed), and it does not
 * lock out anyone else: another username, or the same one from another address (decision 0059).
 */
import { describe, expect, it } from 'vitest';
import type { PasswordVerifier } from '../auth/passwords';
import { build, testConfig } from '../test/helpers';

type App = Awaited<ReturnType<typeof build>>['app'];

const PASSWORD = 'correct horse battery staple';
/** argon2 is not what is under test: the burst is about counting, so checks are instant. */
const fastPasswords: PasswordVerifier = {
  verify: async (passwordHash, password) => passwordHash !== undefined && password === PASSWORD,
};

const BURST = 200;
/** The default per-address window: an office behind one NAT address signs in within it. */
const PER_ADDRESS = testConfig().loginLimits.attemptsPerAddressPerMinute;

/** One sign-in attempt, from `remoteAddress`. */
const login = (app: App, remoteAddress: string, username: string, password: string) =>
  app.inject({ method: 'POST', url: '/api/login', remoteAddress, payload: { username, password } });

const waitMessage = (seconds: number) =>
  `Too many sign-in attempts; try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;

describe('the login rate limit under a burst', () => {
  it(`holds for ${BURST} concurrent guesses at one account from one address, then lets others in`, async () => {
    const { app, addUser } = await build({ deps: { passwords: fastPasswords } });
    await addUser('alice', PASSWORD);
    await addUser('bob', PASSWORD);
    const guesses = await Promise.all(
      Array.from({ length: BURST }, (_, index) =>
        login(app, '203.0.113.7', index % 2 === 0 ? 'alice' : 'ALICE', `guess ${index}`),
      ),
    );
    const byStatus = new Map<number, number>();
    for (const response of guesses) {
      byStatus.set(response.statusCode, (byStatus.get(response.statusCode) ?? 0) + 1);
    }
    // Exactly the allowance of that name at that address reached the password check.
    expect(Object.fromEntries(byStatus)).toEqual({ 401: 10, 429: BURST - 10 });
    for (const response of guesses.filter((r) => r.statusCode === 429)) {
      const retryAfter = Number(response.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(response.json()).toEqual({ error: waitMessage(retryAfter) });
    }
    // Even the right password waits at the guessing address...
    const right = await login(app, '203.0.113.7', 'alice', PASSWORD);
    expect(right.statusCode).toBe(429);
    // ...but alice from her own address gets in, and so does bob from another.
    const alice = await login(app, '198.51.100.1', 'alice', PASSWORD);
    expect(alice.statusCode).toBe(200);
    const other = await login(app, '198.51.100.2', 'bob', PASSWORD);
    expect(other.statusCode).toBe(200);
  });

  it('a burst from one address across many usernames stops that address only', async () => {
    const { app, addUser } = await build({ deps: { passwords: fastPasswords } });
    await addUser('alice', PASSWORD);
    expect(PER_ADDRESS).toBe(120);
    const guesses = await Promise.all(
      Array.from({ length: BURST }, (_, index) =>
        login(app, '203.0.113.9', `user${index}`, 'guess'),
      ),
    );
    const statuses = guesses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 401)).toHaveLength(PER_ADDRESS);
    expect(statuses.filter((status) => status === 429)).toHaveLength(BURST - PER_ADDRESS);
    // The attacking address is refused even for a real account...
    const fromAttacker = await login(app, '203.0.113.9', 'alice', PASSWORD);
    expect(fromAttacker.statusCode).toBe(429);
    // ...and alice from her own address gets in: her username's window holds one attempt, now two.
    const alice = await login(app, '192.0.2.10', 'alice', PASSWORD);
    expect(alice.statusCode).toBe(200);
  });

  it('a burst spread over many addresses at one account stops at the per-name ceiling, with a delay that ends', async () => {
    let now = new Date('2026-11-26T09:00:00Z');
    const { app, addUser } = await build({ deps: { passwords: fastPasswords, now: () => now } });
    await addUser('alice', PASSWORD);
    await addUser('bob', PASSWORD);
    const guesses = await Promise.all(
      Array.from({ length: BURST }, (_, index) =>
        login(app, `10.0.${Math.floor(index / 250)}.${index % 250}`, 'alice', `guess ${index}`),
      ),
    );
    expect(guesses.filter((response) => response.statusCode === 401)).toHaveLength(100);
    const refused = guesses.filter((response) => response.statusCode === 429);
    expect(refused).toHaveLength(BURST - 100);
    expect(new Set(refused.map((response) => response.headers['retry-after']))).toEqual(
      new Set(['1']),
    );
    // The name's ceiling binds alice too, from any address, for the delay it named...
    const fromAlice = () => login(app, '192.0.2.10', 'alice', PASSWORD);
    expect((await fromAlice()).statusCode).toBe(429);
    now = new Date(now.getTime() + 1_000);
    expect((await fromAlice()).statusCode).toBe(200);
    const bob = await login(app, '10.0.0.1', 'bob', PASSWORD);
    expect(bob.statusCode).toBe(200);
  });
});
