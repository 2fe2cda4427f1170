import { describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt } from 'jose';
import { verifyParticipantToken } from '@tailcam/protocol/participant-token';
import { StageProviderError, type StageProvider } from '../providers/stage-provider';
import { build, authSecret, CLIENT_ID, stageTokenSecret } from '../test/helpers';

function tokenRequest(token: string | undefined, payload: unknown = {}, host?: string) {
  return {
    method: 'POST' as const,
    url: '/api/token',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(host === undefined ? {} : { host }),
    },
    payload: payload as object,
  };
}

const validBody = { stageId: 'N743AS', clientId: CLIENT_ID };

async function signedIn(options: Parameters<typeof build>[0] = {}) {
  const test = await build(options);
  const user = await test.addUser('alice', 'correct horse');
  const token = await test.login('alice', 'correct horse');
  return { ...test, user, token };
}

describe('POST /api/token', () => {
  it('issues a subscribe-only local stage token carrying the user and client ids', async () => {
    const { app, token, user } = await signedIn();
    const response = await app.inject(tokenRequest(token, validBody, 'tailcam.test:8080'));
    expect(response.statusCode).toBe(200);
    const participantToken = response.json<{ token: string }>().token;
    const claims = await verifyParticipantToken(participantToken, {
      secret: stageTokenSecret,
      stageId: 'N743AS',
      capability: 'subscribe',
    });
    expect(claims).toMatchObject({
      topic: 'N743AS',
      user_id: user.id,
      attributes: { clientId: CLIENT_ID },
      capabilities: { allow_publish: false, allow_subscribe: true },
      events_url: '/stage/events',
      whip_url: '/stage/whip/N743AS',
    });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('names the stage by configuration only: without PUBLIC_URL the URLs are relative, whatever Host the request carries', async () => {
    const { app, token } = await signedIn();
    for (const host of ['evil.example', 'evil.example/x?', '127.0.0.1:8080', '[::1]:8080']) {
      const response = await app.inject(tokenRequest(token, validBody, host));
      expect(response.statusCode, host).toBe(200);
      const claims = decodeJwt(response.json<{ token: string }>().token);
      expect(claims.events_url, host).toBe('/stage/events');
      expect(claims.whip_url, host).toBe('/stage/whip/N743AS');
    }
  });

  it('points the stage URLs at PUBLIC_URL when it is set', async () => {
    const { app, token } = await signedIn({ config: { publicUrl: 'https://tailcam.example' } });
    const response = await app.inject(tokenRequest(token, validBody, 'internal:8080'));
    const claims = decodeJwt(response.json<{ token: string }>().token);
    expect(claims.events_url).toBe('wss://tailcam.example/stage/events');
    expect(claims.whip_url).toBe('https://tailcam.example/stage/whip/N743AS');
  });

  it('answers 404 naming an unknown stream', async () => {
    const { app, token } = await signedIn();
    const response = await app.inject(tokenRequest(token, { ...validBody, stageId: 'N000XX' }));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'Unknown stream: N000XX' });
  });

  it.each([
    ['a missing stageId', { clientId: CLIENT_ID }],
    ['a numeric stageId', { stageId: 743, clientId: CLIENT_ID }],
    ['a client id that is not a UUID', { stageId: 'N743AS', clientId: 'client-1' }],
    ['a NUL character in the stageId', { stageId: 'N743\u0000AS', clientId: CLIENT_ID }],
    ['an absurdly long stageId', { stageId: 'N'.repeat(2000), clientId: CLIENT_ID }],
  ])('refuses %s with a 400', async (_name, payload) => {
    const { app, token } = await signedIn();
    const response = await app.inject(tokenRequest(token, payload));
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatch(/^Invalid request body: /);
  });

  it('refuses malformed JSON with a 400', async () => {
    const { app, token } = await signedIn();
    const response = await app.inject({
      ...tokenRequest(token),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"stageId":',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'Request body is not valid JSON' });
  });

  it('answers 401 without a token, with a malformed header, and with a forged token', async () => {
    const { app, user } = await signedIn();
    const forged = await new SignJWT({ name: 'alice' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setAudience('tailcam-api')
      .setIssuer('tailcam')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-server-secret-but-long-enough-!!'));
    const cases = [
      [undefined, 'Missing bearer token'],
      ['not a jwt', 'Malformed Authorization header'],
      ['abc.def.ghi', 'Invalid or expired token'],
      [forged, 'Invalid or expired token'],
    ] as const;
    for (const [token, message] of cases) {
      const response = await app.inject(tokenRequest(token, validBody));
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: message });
    }
    const basic = await app.inject({
      ...tokenRequest(undefined, validBody),
      headers: { authorization: 'Basic YWxpY2U6eA==' },
    });
    expect(basic.statusCode).toBe(401);
  });

  it('answers 401 when a participant token is presented as the login token', async () => {
    const { app, token } = await signedIn();
    const issued = await app.inject(tokenRequest(token, validBody));
    const participantToken = issued.json<{ token: string }>().token;
    const response = await app.inject(tokenRequest(participantToken, validBody));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'Invalid or expired token' });
  });

  it('answers 401 with an expired token', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const { app, token } = await signedIn({ deps: { now: () => now } });
    now = new Date(now.getTime() + 12 * 3600 * 1000 + 1000);
    const response = await app.inject(tokenRequest(token, validBody));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'Invalid or expired token' });
  });

  it('answers 401 once the user is disabled, even with a token issued before', async () => {
    const { app, token, store } = await signedIn();
    await store.disableUser('alice');
    const response = await app.inject(tokenRequest(token, validBody));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'This account is disabled' });
  });

  it('answers 401 for a valid token whose user no longer exists', async () => {
    const { app } = await build();
    const token = await new SignJWT({ name: 'ghost' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('00000000-0000-4000-8000-000000000000')
      .setAudience('tailcam-api')
      .setIssuer('tailcam')
      .setExpirationTime('1h')
      .sign(authSecret);
    const response = await app.inject(tokenRequest(token, validBody));
    expect(response.statusCode).toBe(401);
  });

  it('answers 502 with a safe message when the provider fails, keeping details for the log', async () => {
    const failing: StageProvider = {
      name: 'ivs',
      createParticipantToken: async () => {
        throw new StageProviderError('The streaming service is busy; try again in a moment', {
          cause: new Error('arn:aws:ivs:secret-internal-detail'),
        });
      },
      endUserSessions: async () => 0,
      accountAdded: async () => undefined,
    };
    const { app, token } = await signedIn({ deps: { stageProvider: failing } });
    const response = await app.inject(tokenRequest(token, validBody));
    expect(response.statusCode).toBe(502);
    expect(response.json()).toEqual({
      error: 'The streaming service is busy; try again in a moment',
    });
  });

  it('answers 502 with a generic message when the provider throws something unexpected', async () => {
    const broken: StageProvider = {
      name: 'local',
      createParticipantToken: async () => {
        throw new TypeError('cannot read properties of undefined');
      },
      endUserSessions: async () => 0,
      accountAdded: async () => undefined,
    };
    const { app, token } = await signedIn({ deps: { stageProvider: broken } });
    const response = await app.inject(tokenRequest(token, validBody));
    expect(response.statusCode).toBe(502);
    expect(response.json()).toEqual({ error: 'Could not get a participant token' });
  });
});

describe('participant tokens per user', () => {
  const status = async (app: Awaited<ReturnType<typeof build>>['app'], loginToken: string) =>
    (await app.inject(tokenRequest(loginToken, validBody))).statusCode;

  it('answers 429 with Retry-After once one user asked for more than the limit in a minute; others go on', async () => {
    let now = new Date('2026-03-01T12:00:00.000Z');
    const test = await build({ config: { tokenRateLimitPerMinute: 5 }, deps: { now: () => now } });
    await test.addUser('alice', 'correct horse');
    await test.addUser('bob', 'battery staple');
    const alice = await test.login('alice', 'correct horse');
    const bob = await test.login('bob', 'battery staple');
    for (let request = 0; request < 5; request += 1) {
      expect(await status(test.app, alice)).toBe(200);
    }
    const limited = await test.app.inject(tokenRequest(alice, validBody));
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.json()).toEqual({
      error: 'Too many stream requests for this account; try again in 60 seconds',
    });
    expect(await status(test.app, bob)).toBe(200);
    now = new Date(now.getTime() + 60_000);
    expect(await status(test.app, alice)).toBe(200);
  });

  it('allows 30 a minute per user by default', async () => {
    const { app, token } = await signedIn();
    const statuses: number[] = [];
    for (let request = 0; request < 31; request += 1) statuses.push(await status(app, token));
    expect(statuses.filter((code) => code === 200)).toHaveLength(30);
    expect(statuses.at(-1)).toBe(429);
  });
});
