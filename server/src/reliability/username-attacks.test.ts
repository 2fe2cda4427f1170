/**
 * Attacks on usernames at sign-in: an unknown user costs the same password work as a known one,
 * and a look-alike of a name (outside the username grammar, or another case of it) neither signs
 * in as that user nor gets guesses of its own (decision 0059).
 */
import { describe, expect, it, vi } from 'vitest';
import * as argon2 from '@node-rs/argon2';
import { createPasswordVerifier } from '../auth/passwords';
import { build, testConfig } from '../test/helpers';

// Count argon2 verifications under the real PasswordVerifier.
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const original = await importOriginal<typeof import('@node-rs/argon2')>();
  return { ...original, verify: vi.fn(original.verify) };
});

describe('username enumeration', () => {
  it('an unknown user costs the same password work as a known one: one argon2 verify each', async () => {
    const verifyPassword = vi.mocked(argon2.verify);
    {
      const { app, addUser } = await build({ deps: { passwords: createPasswordVerifier() } });
      await addUser('alice', 'correct horse');
      const attempt = async (username: string, password: string) => {
        const before = verifyPassword.mock.calls.length;
        const response = await app.inject({
          method: 'POST',
          url: '/api/login',
          payload: { username, password },
        });
        return {
          status: response.statusCode,
          body: response.body,
          verifies: verifyPassword.mock.calls.length - before,
        };
      };
      const known = await attempt('alice', 'wrong password');
      const unknown = await attempt('mallory', 'wrong password');
      expect(known).toEqual({ status: 401, body: '{"error":"Invalid credentials"}', verifies: 1 });
      expect(unknown).toEqual(known);
      // The unknown user's check ran against an argon2id hash of the same parameters.
      const [dummyHash] = verifyPassword.mock.calls.at(-1)!;
      const [realHash] = verifyPassword.mock.calls.at(-2)!;
      const parameters = (hash: unknown) => String(hash).split('$').slice(1, 4).join('$');
      expect(parameters(dummyHash)).toBe(parameters(realHash));
      expect(parameters(dummyHash)).toMatch(/^argon2id\$v=19\$m=19456,t=2,p=1$/);
    }
  });
});

describe('look-alike usernames', () => {
  const attempt = (
    app: Awaited<ReturnType<typeof build>>['app'],
    username: string,
    password: string,
  ) => app.inject({ method: 'POST', url: '/api/login', payload: { username, password } });

  it('a name outside the grammar never signs in as the user it resembles, nor gets guesses of its own', async () => {
    const { app, addUser } = await build();
    await addUser('pitester', 'correct horse');
    for (let guess = 0; guess < 10; guess += 1) {
      expect((await attempt(app, 'pitester', 'wrong')).statusCode).toBe(401);
    }
    expect((await attempt(app, 'pitester', 'wrong')).statusCode).toBe(429);
    // The Turkish dotted capital I, the dotless i, the Kelvin sign and a fullwidth letter.
    for (const lookAlike of ['p\u0130tester', 'p\u0131tester', 'pitester\u212a', 'p\uff49tester']) {
      const response = await attempt(app, lookAlike, 'correct horse');
      expect(response.statusCode, lookAlike).toBe(401);
      expect(response.json()).toEqual({ error: 'Invalid credentials' });
    }
  });

  it('a name outside the grammar costs one argon2 verify, like an unknown user, and counts against its address', async () => {
    const verifyPassword = vi.mocked(argon2.verify);
    // A window of 30 a minute per address, below the default, keeps the argon2 work short.
    const { app, addUser } = await build({
      config: { loginLimits: { ...testConfig().loginLimits, attemptsPerAddressPerMinute: 30 } },
      deps: { passwords: createPasswordVerifier() },
    });
    await addUser('alice', 'correct horse');
    const before = verifyPassword.mock.calls.length;
    const statuses: number[] = [];
    for (let guess = 0; guess < 30; guess += 1) {
      statuses.push((await attempt(app, `al\u0130ce${guess}`, 'wrong')).statusCode);
    }
    expect(statuses.every((status) => status === 401)).toBe(true);
    expect(verifyPassword.mock.calls.length - before).toBe(30);
    // The address's 30 a minute are used up: even the real user from it waits.
    expect((await attempt(app, 'alice', 'correct horse')).statusCode).toBe(429);
  });

  it('one canonical form: any case of a valid name shares one counter and one account', async () => {
    const { app, addUser } = await build();
    await addUser('PiTester', 'correct horse');
    for (const [guess, name] of ['pitester', 'PITESTER', 'Pitester', 'pItEsTeR'].entries()) {
      for (let round = 0; round < (guess === 0 ? 7 : 1); round += 1) {
        expect((await attempt(app, name, 'wrong')).statusCode).toBe(401);
      }
    }
    expect((await attempt(app, 'PiTeStEr', 'correct horse')).statusCode).toBe(429);
  });
});
