/**
 * The security headers on every kind of answer, refusals and failures included (401, 404, 413,
 * 415, 429, 502, 503), no-store on every API answer, nothing that names the software, and no
 * internals in any error body.
 */
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { PasswordVerifier } from '../auth/passwords';
import type { UserStore } from '../db/user-store';
import { build, CLIENT_ID, testConfig } from '../test/helpers';

const fastPasswords: PasswordVerifier = {
  verify: async (passwordHash, password) => passwordHash !== undefined && password === 'pw',
};

const REQUIRED = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

function expectHardened(name: string, response: LightMyRequestResponse): void {
  expect(response.headers, name).toMatchObject(REQUIRED);
  const csp = String(response.headers['content-security-policy']);
  for (const directive of [
    "default-src 'self'",
    "script-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ]) {
    expect(csp, name).toContain(directive);
  }
  expect(csp, name).not.toMatch(/unsafe-inline|unsafe-eval|\*(?!\.live-video\.net)/);
  expect(response.headers['x-powered-by'], name).toBeUndefined();
  expect(response.headers.server, name).toBeUndefined();
  expect(response.headers['access-control-allow-origin'], name).toBeUndefined();
}

describe('security headers on every kind of answer', () => {
  it('API answers, refusals and failures alike; API answers are never stored', async () => {
    const { app, addUser, login } = await build({ deps: { passwords: fastPasswords } });
    await addUser('alice', 'pw');
    const token = await login('alice', 'pw');
    const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, payload: payload as object, headers });
    const answers: Record<string, LightMyRequestResponse> = {
      'login 200': await post('/api/login', { username: 'alice', password: 'pw' }),
      'login 401': await post('/api/login', { username: 'alice', password: 'wrong' }),
      'login 400': await post('/api/login', { username: 1 }),
      'login 413': await post('/api/login', { username: 'a'.repeat(5000), password: 'x' }),
      'login 415': await post('/api/login', 'x', { 'content-type': 'text/plain' }),
      'token 200': await post(
        '/api/token',
        { stageId: 'N743AS', clientId: CLIENT_ID },
        { authorization: `Bearer ${token}` },
      ),
      'token 401': await post('/api/token', { stageId: 'N743AS', clientId: CLIENT_ID }),
      'token 404': await post(
        '/api/token',
        { stageId: 'NOPE', clientId: CLIENT_ID },
        { authorization: `Bearer ${token}` },
      ),
      'api 404': await app.inject({ url: '/api/nothing' }),
      health: await app.inject({ url: '/api/health' }),
      ready: await app.inject({ url: '/api/ready' }),
    };
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await post('/api/login', { username: 'mallory', password: 'x' });
    }
    answers['login 429'] = await post('/api/login', { username: 'mallory', password: 'x' });
    expect(answers['login 429'].statusCode).toBe(429);

    for (const [name, response] of Object.entries(answers)) {
      expectHardened(name, response);
      expect(response.headers['cache-control'], name).toBe('no-store');
      expect(response.headers['content-type'], name).toMatch(/^application\/json/);
      // No stack, file path or library internals in any answer.
      expect(response.body, name).not.toMatch(/\bat .+:\d+:\d+|node_modules|\/work\/|FST_/);
    }
  });

  it('the app, its assets, the SDK and plain 404s carry them too', async () => {
    const { app } = await build();
    for (const url of [
      '/',
      '/home',
      '/player/N743AS',
      '/assets/index-abc123.js',
      '/sdk/stage.js',
      '/nothing',
    ]) {
      const response = await app.inject({ url });
      expectHardened(url, response);
      expect(response.headers['cache-control'], url).not.toBe('no-store');
    }
  });

  it('a 503 from a database that is down and a 502 from a stage that is down carry them too', async () => {
    const base = await build();
    const down: UserStore = {
      ...base.store,
      findByUsername: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
          code: 'ECONNREFUSED',
        });
      },
    };
    const config = testConfig();
    const { app } = await build({
      deps: { store: down, passwords: fastPasswords },
      config: { localStage: { ...config.localStage, url: 'http://127.0.0.1:1' } },
    });
    const login = await app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'alice', password: 'pw' },
    });
    expect(login.statusCode).toBe(503);
    expectHardened('login 503', login);
    expect(login.body).not.toMatch(/5432|ECONNREFUSED/);
    const stage = await app.inject({ url: '/stage/health' });
    expect(stage.statusCode).toBeGreaterThanOrEqual(502);
    expectHardened('stage 502', stage);
  });
});
