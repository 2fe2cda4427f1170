import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { build, CLIENT_ID, testConfig } from '../test/helpers';
import type { UserStore } from '../db/user-store';

const expectedHeaders = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

describe('security headers', () => {
  it('are on every kind of response: API, app, static, 404 and errors', async () => {
    const { app } = await build();
    const responses = await Promise.all([
      app.inject({ url: '/api/health' }),
      app.inject({ url: '/home' }),
      app.inject({ url: '/assets/index-abc123.js' }),
      app.inject({ url: '/api/nothing-here' }),
      app.inject({ url: '/nothing-here' }),
      app.inject({ method: 'POST', url: '/api/login', payload: {} }),
      app.inject({ url: '/sdk/stage.js' }),
    ]);
    for (const response of responses) {
      expect(response.headers).toMatchObject(expectedHeaders);
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('use a strict CSP with the local stage: this origin only', async () => {
    const { app } = await build();
    const csp = (await app.inject({ url: '/' })).headers['content-security-policy'];
    expect(csp).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; media-src 'self' blob:; worker-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    );
  });

  it('let the IVS SDK reach *.live-video.net and start blob: workers with the ivs provider, and nothing more', async () => {
    const { app } = await build({ config: { stageProvider: 'ivs' } });
    const csp = (await app.inject({ url: '/' })).headers['content-security-policy'];
    expect(csp).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self' https://*.live-video.net wss://*.live-video.net; media-src 'self' blob:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    );
  });

  it('admit the origin of IVS_SDK_URL as a script source, with the ivs provider only', async () => {
    const ivsSdk = {
      sdkUrl: 'https://web-broadcast.live-video.net/1.41.0/amazon-ivs-web-broadcast.js',
    };
    const ivs = await build({
      config: { stageProvider: 'ivs', ivs: { ...testConfig().ivs, ...ivsSdk } },
    });
    const csp = String((await ivs.app.inject({ url: '/' })).headers['content-security-policy']);
    expect(csp).toContain("; script-src 'self' https://web-broadcast.live-video.net; ");
    const local = await build({ config: { ivs: { ...testConfig().ivs, ...ivsSdk } } });
    const localCsp = String(
      (await local.app.inject({ url: '/' })).headers['content-security-policy'],
    );
    expect(localCsp).toContain("; script-src 'self'; ");
  });

  it("let the player read IVS's recordings bucket with the ivs provider only", async () => {
    const ivsConfig = { ...testConfig().ivs, region: 'eu-west-1', recordingsBucket: 'tc-rec' };
    const ivs = await build({ config: { stageProvider: 'ivs', ivs: ivsConfig } });
    const csp = String((await ivs.app.inject({ url: '/' })).headers['content-security-policy']);
    const bucket = 'https://tc-rec.s3.eu-west-1.amazonaws.com';
    expect(csp).toContain(`; media-src 'self' blob: ${bucket}; `);
    expect(csp).toContain(`wss://*.live-video.net ${bucket}; `);
    const local = await build({ config: { ivs: ivsConfig } });
    const localCsp = String(
      (await local.app.inject({ url: '/' })).headers['content-security-policy'],
    );
    expect(localCsp).not.toContain('amazonaws.com');
  });
});

describe('CORS', () => {
  it('is closed by default', async () => {
    const { app } = await build();
    const response = await app.inject({
      url: '/api/health',
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/api/token',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('opens to the configured origins only, preflight included', async () => {
    const { app } = await build({ config: { corsOrigins: ['https://app.example'] } });
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/api/token',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-headers': 'Content-Type, Authorization',
    });
    const other = await app.inject({
      url: '/api/health',
      headers: { origin: 'https://evil.example' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers.vary).toBe('Origin');
  });
});

describe('hostile input', () => {
  it.each([
    ['a body over the limit', 'application/json', JSON.stringify({ username: 'a'.repeat(10_000) })],
    ['text/plain', 'text/plain', 'username=alice'],
    ['a form', 'application/x-www-form-urlencoded', 'username=alice&password=x'],
    ['an unknown content type', 'application/octet-stream', '\u0000\u0001'],
    ['an empty JSON body', 'application/json', ''],
    ['a JSON null', 'application/json', 'null'],
    ['a JSON string', 'application/json', '"alice"'],
    ['a NUL in a JSON string', 'application/json', '{"username":"a\\u0000","password":"x"}'],
    ['a prototype-poisoning body', 'application/json', '{"__proto__":{"admin":true}}'],
    ['invalid UTF-8', 'application/json', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ])('never answers a 5xx to %s', async (_name, contentType, payload) => {
    const { app } = await build();
    for (const url of ['/api/login', '/api/token']) {
      const response = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': contentType, authorization: 'Bearer x.y.z' },
        payload,
      });
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
      expect(response.json()).toEqual({ error: expect.any(String) });
    }
  });

  it('answers 413 for a body over the 4 KiB limit and 415 for a non-JSON body', async () => {
    const { app } = await build();
    const big = await app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'a'.repeat(10_000), password: 'x' },
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ error: 'Request body is too large' });
    const text = await app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toEqual({ error: 'Content-Type must be application/json' });
  });

  it('answers 500 without internals when something breaks, and logs it in full', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', {
      format: 'json',
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    const base = await build();
    const broken: UserStore = {
      ...base.store,
      findByUsername: async () => {
        throw new Error('relation "users" does not exist at /srv/secret/path');
      },
    };
    const { app } = await build({ deps: { store: broken, logger } });
    const response = await app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'alice', password: 'x' },
    });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: 'Internal server error' });
    expect(response.body).not.toContain('secret');
    expect(lines.join('')).toContain('/srv/secret/path');
  });
});

describe('logs', () => {
  it('carry request ids and never a password, a token or an Authorization header', async () => {
    const lines: string[] = [];
    const logger = createLogger('trace', {
      format: 'json',
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    const { app, addUser, login } = await build({ deps: { logger } });
    await addUser('alice', 'correct horse');
    const token = await login('alice', 'correct horse');
    const response = await app.inject({
      method: 'POST',
      url: '/api/token',
      headers: { authorization: `Bearer ${token}` },
      payload: { stageId: 'N743AS', clientId: CLIENT_ID },
    });
    const participantToken = response.json<{ token: string }>().token;
    logger.info({
      password: 'correct horse',
      token: 'abc',
      req: { headers: { authorization: 'x' } },
    });
    const text = lines.join('');
    expect(text).toContain('"reqId"');
    expect(text).not.toContain('correct horse');
    expect(text).not.toContain(token);
    expect(text).not.toContain(participantToken);
    expect(text).toContain('[redacted]');
  });
});

describe('health', () => {
  it('answers liveness, and readiness while the database answers', async () => {
    const { app } = await build();
    expect((await app.inject({ url: '/api/health' })).json()).toEqual({ status: 'ok' });
    const ready = await app.inject({ url: '/api/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('answers 503 on readiness when the database is down', async () => {
    const base = await build();
    const down: UserStore = {
      ...base.store,
      ping: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    };
    const { app } = await build({ deps: { store: down } });
    const ready = await app.inject({ url: '/api/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ error: 'Database unavailable' });
    expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
  });
});
