/**
 * The WHIP endpoint through the API's `/stage/` proxy (docs/product.md#whip), against a stand-in
 * that answers as the local stage does: what an encoder sends reaches the stage byte for byte,
 * what the stage answers (Location, ETag, Link, WWW-Authenticate, its CORS) reaches the encoder
 * unchanged, CORS_ORIGINS never applies there, and the API's own door (64 KiB, offers per
 * address) refuses before anything reaches the stage.
 */
import { request as httpRequest, type ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../app';
import { createMemoryRateLimitStore, type RateLimitStore } from '../http/rate-limit';
import { build, testConfig } from '../test/helpers';
import { startStandInStage, type ReceivedRequest } from '../test/stand-in-stage';
import { MAX_WHIP_BODY_BYTES, STAGE_UNREACHABLE } from './stage-proxy';

/** The stage's CORS headers on every WHIP answer (local-stage/src/server/whip.ts). */
const STAGE_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, If-Match',
  'access-control-expose-headers': 'Location, Link, ETag, Accept-Patch',
  'access-control-max-age': '600',
};
const ANSWER = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\na=ice-lite\r\n';
const OFFER =
  'v=0\r\no=- 42 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJ0b3BpYyI6Ik43NDNBUyJ9.c2lnbmF0dXJl';

function answerAsTheStage(request: ReceivedRequest, res: ServerResponse): void {
  if (request.method === 'OPTIONS') {
    res.writeHead(204, { ...STAGE_CORS, 'accept-post': 'application/sdp' });
    res.end();
  } else if (request.headers.authorization === undefined) {
    res.writeHead(401, {
      ...STAGE_CORS,
      'www-authenticate': 'Bearer',
      'content-type': 'application/json; charset=utf-8',
    });
    res.end(JSON.stringify({ error: 'A Bearer token is needed (Authorization: Bearer …)' }));
  } else if (request.method === 'POST') {
    res.writeHead(201, {
      ...STAGE_CORS,
      location: '/stage/whip/N743AS/session-1',
      etag: '"session-1"',
      // The stage's TURN servers (decision 0063): one Link per URL, every one kept.
      link: [
        '<turn:turn.example:3478?transport=tcp>; rel="ice-server"; username="1767229200:u-1"; credential="yUjuyJQQkPMWbjasKAyGxhCJ5oU="; credential-type="password"',
        '<turns:turn.example:5349?transport=tcp>; rel="ice-server"; username="1767229200:u-1"; credential="yUjuyJQQkPMWbjasKAyGxhCJ5oU="; credential-type="password"',
      ],
      'content-type': 'application/sdp',
      'cache-control': 'no-store',
    });
    res.end(ANSWER);
  } else {
    res.writeHead(request.method === 'PATCH' ? 204 : 200, STAGE_CORS);
    res.end();
  }
}

async function whipApp(
  config: Partial<AppConfig> = {},
  deps: { rateLimitStore?: RateLimitStore; now?: () => Date } = {},
) {
  const stage = await startStandInStage(answerAsTheStage);
  const base = testConfig();
  const { app } = await build({
    config: { localStage: { ...base.localStage, url: stage.url }, ...config },
    deps,
  });
  return { app, stage };
}

const offerRequest = (headers: Record<string, string> = {}, payload: string | Buffer = OFFER) => ({
  method: 'POST' as const,
  url: '/stage/whip/N743AS',
  headers: { 'content-type': 'application/sdp', authorization: `Bearer ${TOKEN}`, ...headers },
  payload,
});

function expectApiSecurityHeaders(headers: Record<string, unknown>): void {
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
}

describe('WHIP through the /stage/ proxy', () => {
  it("passes the offer through raw and the stage's answer back with its headers unchanged", async () => {
    const { app, stage } = await whipApp();
    const response = await app.inject(
      offerRequest({ 'content-type': 'application/sdp', origin: 'https://encoder.example' }),
    );
    expect(stage.received).toHaveLength(1);
    const received = stage.received[0]!;
    expect(received.method).toBe('POST');
    expect(received.url).toBe('/stage/whip/N743AS');
    expect(received.headers['content-type']).toBe('application/sdp');
    expect(received.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(received.body.toString()).toBe(OFFER);

    expect(response.statusCode).toBe(201);
    expect(response.body).toBe(ANSWER);
    expect(response.headers).toMatchObject({
      ...STAGE_CORS,
      location: '/stage/whip/N743AS/session-1',
      etag: '"session-1"',
      link: [
        '<turn:turn.example:3478?transport=tcp>; rel="ice-server"; username="1767229200:u-1"; credential="yUjuyJQQkPMWbjasKAyGxhCJ5oU="; credential-type="password"',
        '<turns:turn.example:5349?transport=tcp>; rel="ice-server"; username="1767229200:u-1"; credential="yUjuyJQQkPMWbjasKAyGxhCJ5oU="; credential-type="password"',
      ],
      'content-type': 'application/sdp',
    });
    expect(response.headers.vary).toBeUndefined();
    expectApiSecurityHeaders(response.headers);
  });

  it('passes trickled candidates, the end of a session and preflights to the stage', async () => {
    const { app, stage } = await whipApp();
    const fragment =
      'a=ice-ufrag:abcd\r\na=mid:0\r\na=candidate:1 1 udp 1 192.0.2.1 5000 typ host\r\n';
    const patch = await app.inject({
      method: 'PATCH',
      url: '/stage/whip/N743AS/session-1',
      headers: {
        'content-type': 'application/trickle-ice-sdpfrag',
        authorization: `Bearer ${TOKEN}`,
      },
      payload: fragment,
    });
    expect(patch.statusCode).toBe(204);
    expect(patch.headers).toMatchObject(STAGE_CORS);
    const remove = await app.inject({
      method: 'DELETE',
      url: '/stage/whip/N743AS/session-1',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(remove.statusCode).toBe(200);
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/stage/whip/N743AS',
      headers: {
        origin: 'https://encoder.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({ ...STAGE_CORS, 'accept-post': 'application/sdp' });
    expectApiSecurityHeaders(preflight.headers);

    expect(stage.received.map((request) => `${request.method} ${request.url}`)).toEqual([
      'PATCH /stage/whip/N743AS/session-1',
      'DELETE /stage/whip/N743AS/session-1',
      'OPTIONS /stage/whip/N743AS',
    ]);
    expect(stage.received[0]!.headers['content-type']).toBe('application/trickle-ice-sdpfrag');
    expect(stage.received[0]!.body.toString()).toBe(fragment);
  });

  it("passes the stage's 401 with WWW-Authenticate through", async () => {
    const { app } = await whipApp();
    const { authorization: _none, ...headers } = offerRequest().headers;
    const response = await app.inject({ ...offerRequest(), headers });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.json()).toEqual({
      error: 'A Bearer token is needed (Authorization: Bearer …)',
    });
  });

  it('never applies CORS_ORIGINS there: no CORS of its own, the preflight left to the stage', async () => {
    const { app, stage } = await whipApp({ corsOrigins: ['https://app.example'] });
    // The setting is live elsewhere: the API echoes a listed origin and answers its preflight.
    const api = await app.inject({
      url: '/api/health',
      headers: { origin: 'https://app.example' },
    });
    expect(api.headers['access-control-allow-origin']).toBe('https://app.example');

    for (const origin of ['https://app.example', 'https://encoder.example']) {
      const offer = await app.inject(offerRequest({ origin }));
      expect(offer.statusCode).toBe(201);
      expect(offer.headers['access-control-allow-origin']).toBe('*');
      expect(offer.headers['access-control-expose-headers']).toBe(
        STAGE_CORS['access-control-expose-headers'],
      );
      expect(offer.headers.vary).toBeUndefined();
      const preflight = await app.inject({
        method: 'OPTIONS',
        url: '/stage/whip/N743AS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers['access-control-allow-methods']).toBe(
        STAGE_CORS['access-control-allow-methods'],
      );
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
    }
    expect(stage.received.map((request) => request.method)).toEqual([
      'POST',
      'OPTIONS',
      'POST',
      'OPTIONS',
    ]);
  });

  it('refuses a body over 64 KiB with 413 before anything reaches the stage', async () => {
    const { app, stage } = await whipApp();
    const exactly = `${OFFER}${'a'.repeat(MAX_WHIP_BODY_BYTES - OFFER.length)}`;
    expect((await app.inject(offerRequest({}, exactly))).statusCode).toBe(201);
    expect(stage.received[0]!.body.length).toBe(MAX_WHIP_BODY_BYTES);

    const tooBig = await app.inject(offerRequest({}, `${exactly}a`));
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json()).toEqual({ error: 'Request body is too large' });
    expectApiSecurityHeaders(tooBig.headers);
    // An answer of the API's own is still readable by a publisher's page on another origin.
    expect(tooBig.headers['access-control-allow-origin']).toBe('*');
    const patch = await app.inject({
      method: 'PATCH',
      url: '/stage/whip/N743AS/session-1',
      headers: { 'content-type': 'application/trickle-ice-sdpfrag', authorization: 'Bearer x' },
      payload: 'a'.repeat(MAX_WHIP_BODY_BYTES + 1),
    });
    expect(patch.statusCode).toBe(413);
    expect(stage.received).toHaveLength(1);
  });

  it('refuses an oversized body sent without Content-Length (chunked) as it streams', async () => {
    const { app, stage } = await whipApp();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const { status, body } = await new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const req = httpRequest(`${address}/stage/whip/N743AS`, {
          method: 'POST',
          headers: { 'content-type': 'application/sdp', authorization: `Bearer ${TOKEN}` },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        for (let sent = 0; sent <= MAX_WHIP_BODY_BYTES; sent += 16 * 1024) {
          req.write('a'.repeat(16 * 1024));
        }
        req.end();
      },
    );
    expect(status).toBe(413);
    expect(JSON.parse(body)).toEqual({ error: 'Request body is too large' });
    expect(stage.received).toHaveLength(0);
  });

  it('limits offers per address in the configured store, with 429 and Retry-After', async () => {
    const keys: string[] = [];
    const memory = createMemoryRateLimitStore();
    const store: RateLimitStore = {
      ...memory,
      hit: (key, windowMs, now) => {
        keys.push(key);
        return memory.hit(key, windowMs, now);
      },
    };
    let now = new Date('2026-11-23T12:00:10Z');
    const { app, stage } = await whipApp(
      { whipRateLimitPerMinute: 3 },
      { rateLimitStore: store, now: () => now },
    );
    const from = (remoteAddress: string) => ({ ...offerRequest(), remoteAddress });
    for (let i = 0; i < 3; i += 1) {
      expect((await app.inject(from('192.0.2.7'))).statusCode).toBe(201);
    }
    const refused = await app.inject(from('192.0.2.7'));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: 'Too many WHIP offers from this address; try again in 60 seconds',
    });
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(refused.headers['access-control-expose-headers']).toBe('Retry-After');
    expectApiSecurityHeaders(refused.headers);
    expect(stage.received).toHaveLength(3);
    expect(keys).toEqual(Array(4).fill('whip-address:192.0.2.7'));

    // Only offers count: the session's own requests and preflights still pass.
    const remove = await app.inject({
      method: 'DELETE',
      url: '/stage/whip/N743AS/session-1',
      headers: { authorization: `Bearer ${TOKEN}` },
      remoteAddress: '192.0.2.7',
    });
    expect(remove.statusCode).toBe(200);
    // Another address has its own count; the window ends after a minute.
    expect((await app.inject(from('198.51.100.9'))).statusCode).toBe(201);
    now = new Date(now.getTime() + 60_000);
    expect((await app.inject(from('192.0.2.7'))).statusCode).toBe(201);
  });

  it('answers the JSON 502 while the stage is down, readable from another origin', async () => {
    const { app } = await build();
    const response = await app.inject(offerRequest({ origin: 'https://encoder.example' }));
    expect(response.statusCode).toBeGreaterThanOrEqual(502);
    expect(response.statusCode).toBeLessThanOrEqual(503);
    expect(response.json()).toEqual({ error: STAGE_UNREACHABLE });
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expectApiSecurityHeaders(response.headers);
  });
});
