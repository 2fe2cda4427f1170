import { describe, expect, it, vi } from 'vitest';
import { decodeJwt } from 'jose';
import { createPasswordVerifier } from '../auth/passwords';
import { build, testConfig } from '../test/helpers';

const login = (payload: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url: '/api/login',
  payload: payload as object,
  headers,
});

describe('POST /api/login', () => {
  it('answers a login token naming the user, whatever the case of the username', async () => {
    const { app, addUser } = await build();
    const user = await addUser('Alice', 'correct horse');
    const response = await app.inject(login({ username: 'alice', password: 'correct horse' }));
    expect(response.statusCode).toBe(200);
    const claims = decodeJwt(response.json<{ token: string }>().token);
    expect(claims).toMatchObject({ sub: user.id, name: 'Alice', aud: 'tailcam-api' });
    expect(claims.exp! - claims.iat!).toBe(12 * 3600);
  });

  it('answers one generic 401 for a wrong password, an unknown user and a disabled user', async () => {
    const { app, addUser, store } = await build();
    await addUser('alice', 'correct horse');
    await addUser('bob', 'battery staple');
    await store.disableUser('bob');
    for (const payload of [
      { username: 'alice', password: 'wrong' },
      { username: 'nobody', password: 'correct horse' },
      { username: 'bob', password: 'battery staple' },
    ]) {
      const response = await app.inject(login(payload));
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: 'Invalid credentials' });
    }
  });

  it('verifies a password against a dummy hash for an unknown user, so timing does not tell', async () => {
    const passwords = createPasswordVerifier();
    const verify = vi.spyOn(passwords, 'verify');
    const { app } = await build({ deps: { passwords } });
    const response = await app.inject(login({ username: 'ghost', password: 'anything' }));
    expect(response.statusCode).toBe(401);
    expect(verify).toHaveBeenCalledWith(undefined, 'anything');
  });

  it.each([
    ['a missing password', { username: 'alice' }],
    ['a number for a username', { username: 42, password: 'x' }],
    ['an empty username', { username: '', password: 'x' }],
    ['a NUL character', { username: 'al\u0000ice', password: 'x' }],
    ['an absurdly long username', { username: 'a'.repeat(3000), password: 'x' }],
    ['an array body', ['alice', 'x']],
  ])('refuses %s with a 400', async (_name, payload) => {
    const { app } = await build();
    const response = await app.inject(login(payload));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: expect.stringMatching(/^Invalid request body: /) });
  });

  it('refuses malformed JSON with a 400', async () => {
    const { app } = await build();
    const response = await app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": "alice",',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'Request body is not valid JSON' });
  });

  it('delays attempts at one name from one address with a 429, Retry-After and a clear message', async () => {
    const { app, addUser } = await build();
    await addUser('alice', 'correct horse');
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const response = await app.inject(login({ username: 'ALICE', password: 'wrong' }));
      expect(response.statusCode).toBe(401);
    }
    const limited = await app.inject(login({ username: 'alice', password: 'correct horse' }));
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.json()).toEqual({ error: 'Too many sign-in attempts; try again in 1 second' });
    // Another username from the same address is not locked out by alice's attempts.
    await addUser('bob', 'battery staple');
    const other = await app.inject(login({ username: 'bob', password: 'battery staple' }));
    expect(other.statusCode).toBe(200);
  });

  it('counts an IPv6 address by its /64, as every per-address limit does', async () => {
    const { app, addUser } = await build();
    await addUser('alice', 'correct horse');
    const from = (remoteAddress: string, password: string) =>
      app.inject({ ...login({ username: 'alice', password }), remoteAddress });
    for (let host = 1; host <= 10; host += 1) {
      expect((await from(`2001:db8:0:7::${host.toString(16)}`, 'wrong')).statusCode).toBe(401);
    }
    expect((await from('2001:db8:0:7:ffff::1', 'correct horse')).statusCode).toBe(429);
    expect((await from('2001:db8:0:8::1', 'correct horse')).statusCode).toBe(200);
  });

  it('limits attempts per client address across usernames', async () => {
    // 30 a minute rather than the default 120: each unknown name costs an argon2 verify.
    const { app } = await build({
      config: { loginLimits: { ...testConfig().loginLimits, attemptsPerAddressPerMinute: 30 } },
    });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 31; attempt += 1) {
      const response = await app.inject(
        login({ username: `user${attempt}`, password: 'wrong' }, {}),
      );
      statuses.push(response.statusCode);
    }
    expect(statuses.slice(0, 30).every((status) => status === 401)).toBe(true);
    expect(statuses[30]).toBe(429);
  });

  it('lets a person in again once the delay has passed', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const { app, addUser } = await build({ deps: { now: () => now } });
    await addUser('alice', 'correct horse');
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await app.inject(login({ username: 'alice', password: 'wrong' }));
    }
    expect((await app.inject(login({ username: 'alice', password: 'wrong' }))).statusCode).toBe(
      429,
    );
    now = new Date(now.getTime() + 1_000);
    const response = await app.inject(login({ username: 'alice', password: 'correct horse' }));
    expect(response.statusCode).toBe(200);
  });
});
