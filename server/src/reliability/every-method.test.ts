/**
 * Every method, with and without a body, to every route family, over real sockets and through the
 * real logger at every level: no request, whatever its body, may end the API, and
 * the log's serializer must cope with a request whose socket is gone, which `inject` (no socket)
 * cannot show (decision 0052). Then the door's two rules before any route runs: a path with a
 * dot segment, a doubled slash or an encoded dot, slash or backslash is a 400 (it must not reach
 * the stage past the WHIP/WHEP rate limit), and a cross-site request that is not a
 * GET is a 403 outside WHIP/WHEP.
 */
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { listenOnLoopback } from '../test/raw-http';
import { build, testConfig } from '../test/helpers';
import { startStandInStage, type ReceivedRequest } from '../test/stand-in-stage';
import type { ServerResponse } from 'node:http';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
const PATHS = [
  '/api/login',
  '/api/token',
  '/api/health',
  '/api/ready',
  '/api/nope',
  '/',
  '/home',
  '/assets/index-abc123.js',
  '/assets/index-abc123.js.map',
  '/sdk/stage.js',
  '/stage/health',
  '/stage/x',
  '/stage/events',
  '/stage/whip/N743AS',
  '/stage/whip/N743AS/session-1',
  '/stage/whep/N743AS',
  '/stage/whep/N743AS/session-1',
];

/** Answers like the stage: a session for an offer, 204 for a PATCH or DELETE, else 404. */
function answerAsTheStage(request: ReceivedRequest, response: ServerResponse): void {
  const door = /^\/stage\/(whip|whep)\/N743AS(\/session-1)?$/.exec(request.url);
  if (door !== null && request.method === 'POST' && door[2] === undefined) {
    response.writeHead(201, { location: `${request.url}/session-1`, 'content-type': 'text/plain' });
    response.end('v=0\r\n');
  } else if (door !== null && (request.method === 'PATCH' || request.method === 'DELETE')) {
    response.writeHead(204).end();
  } else if (request.url === '/stage/health' && request.method !== 'POST') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(request.method === 'HEAD' ? undefined : '{"status":"ok","ready":true}');
  } else {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  }
}

interface Answer {
  status: number;
  body: string;
}

function send(
  base: string,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    // The path as written: a URL string would be normalised (`/./` dropped) before it is sent.
    const { hostname, port } = new URL(base);
    const target = { hostname, port, path, method, headers, agent: false };
    const req = httpRequest(target, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** What the process threw where nothing caught it, while a test ran. */
const uncaught: unknown[] = [];
const recordUncaught = (error: unknown) => uncaught.push(error);

afterEach(() => {
  process.off('uncaughtException', recordUncaught);
  uncaught.length = 0;
});

async function apiBehindStandInStage(options: { level?: string; corsOrigins?: string[] } = {}) {
  const stage = await startStandInStage(answerAsTheStage);
  const lines: string[] = [];
  const logger = createLogger(options.level ?? 'info', {
    format: 'json',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
  const base = testConfig();
  const { app } = await build({
    config: {
      localStage: { ...base.localStage, url: stage.url },
      corsOrigins: options.corsOrigins ?? [],
      whipRateLimitPerMinute: 10_000,
      whepRateLimitPerMinute: 10_000,
    },
    deps: { logger },
  });
  const port = await listenOnLoopback(app);
  return { base: `http://127.0.0.1:${port}`, stage, lines };
}

describe('every method to every route family, through the real logger', () => {
  it.each(LEVELS)(
    'answers each one and keeps serving, logging at %s',
    async (level) => {
      process.on('uncaughtException', recordUncaught);
      const { base, lines } = await apiBehindStandInStage({ level });
      for (const path of PATHS) {
        for (const method of METHODS) {
          for (const body of [undefined, 'x']) {
            const what = `${method} ${path} ${body === undefined ? 'without' : 'with'} a body`;
            const answer = await send(base, method, path, body === undefined ? {} : { body });
            expect(answer.status, what).toBeGreaterThanOrEqual(200);
            expect(answer.status, what).toBeLessThan(500);
            expect(answer.body, what).not.toMatch(/ at |node_modules|127\.0\.0\.1:\d/);
          }
        }
        // Still serving after every path's requests: nothing ended the process's listener.
        expect((await send(base, 'GET', '/api/health')).status).toBe(200);
      }
      // A serializer that throws does it in a 'finish' listener, after the answer was sent.
      await new Promise((resolve) => setImmediate(resolve));
      expect(uncaught).toEqual([]);
      if (level === 'debug' || level === 'trace') {
        expect(lines.some((line) => line.includes('"request completed"'))).toBe(true);
      }
    },
    60_000,
  );

  it('proxies to the stage only what the browser needs outside WHIP and WHEP: GET and HEAD of its health', async () => {
    const { base, stage } = await apiBehindStandInStage();
    expect((await send(base, 'GET', '/stage/health')).status).toBe(200);
    expect((await send(base, 'HEAD', '/stage/health')).status).toBe(200);
    const passed = stage.received.length;
    for (const method of METHODS) {
      for (const path of ['/stage/x', '/stage/events', '/stage/_stats', '/stage/health/x']) {
        if (path === '/stage/events' && method === 'GET') continue;
        expect((await send(base, method, path, { body: 'x' })).status).toBe(404);
      }
      if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
        expect((await send(base, method, '/stage/health', { body: 'x' })).status).toBe(404);
      }
    }
    expect(stage.received.slice(passed)).toEqual([]);
  });
});

describe('the door before any route', () => {
  const ODD_PATHS = [
    '/stage/./whep/N743AS',
    '/stage/whep/./N743AS',
    '/stage/x/../whep/N743AS',
    '/stage//whep/N743AS',
    '/stage/whep//N743AS',
    '/stage/%2e/whep/N743AS',
    '/stage/%2E/whep/N743AS',
    '/stage/%2e%2e/whep/N743AS',
    '/stage%2fwhep/N743AS',
    '/stage%2Fwhep/N743AS',
    '/stage/whep%5cN743AS',
    '/stage/whep%5CN743AS',
    '/stage/whep/N743AS/.',
    '/stage/whep/N743AS/..',
  ];

  it.each(['whip', 'whep'])(
    'answers 400 to a %s offer whose path has a dot segment, a doubled slash or an encoded dot, slash or backslash, and passes nothing to the stage',
    async (door) => {
      const { base, stage } = await apiBehindStandInStage();
      for (const path of ODD_PATHS.map((odd) => odd.replace('whep', door))) {
        for (const method of ['POST', 'PATCH', 'DELETE', 'GET']) {
          const answer = await send(base, method, path, {
            body: 'v=0\r\n',
            headers: { 'content-type': 'application/sdp', authorization: 'Bearer x' },
          });
          expect(answer.status, `${method} ${path}`).toBe(400);
          expect(JSON.parse(answer.body), path).toEqual({ error: 'Malformed URL' });
        }
      }
      expect(stage.received).toEqual([]);
    },
  );

  it('keeps the per-address offer limit on every spelling of the door', async () => {
    const stage = await startStandInStage(answerAsTheStage);
    const base = testConfig();
    const { app } = await build({
      config: {
        localStage: { ...base.localStage, url: stage.url },
        whipRateLimitPerMinute: 1,
        whepRateLimitPerMinute: 1,
      },
    });
    const api = `http://127.0.0.1:${await listenOnLoopback(app)}`;
    for (const door of ['whip', 'whep']) {
      const offer = (path: string) =>
        send(api, 'POST', path, {
          body: 'v=0\r\n',
          headers: { 'content-type': 'application/sdp', authorization: 'Bearer x' },
        });
      expect((await offer(`/stage/${door}/N743AS`)).status).toBe(201);
      expect((await offer(`/stage/${door}/N743AS`)).status).toBe(429);
      for (const odd of ODD_PATHS) {
        expect((await offer(odd.replace('whep', door))).status, odd).not.toBe(201);
      }
    }
    expect(stage.received.map((request) => request.url)).toEqual([
      '/stage/whip/N743AS',
      '/stage/whep/N743AS',
    ]);
  });

  it('refuses a cross-site request that is not a GET with 403 before any route runs, unless its origin is in CORS_ORIGINS; WHIP and WHEP stay open to every origin', async () => {
    const { base, stage } = await apiBehindStandInStage({
      corsOrigins: ['https://app.example'],
    });
    const crossSite = (origin: string) => ({ 'sec-fetch-site': 'cross-site', origin });
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/api/login', '/api/token', '/stage/x', '/stage/health', '/home']) {
        const refused = await send(base, method, path, {
          body: 'x',
          headers: crossSite('https://evil.example'),
        });
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(JSON.parse(refused.body)).toEqual({ error: 'Cross-site request refused' });
        const allowed = await send(base, method, path, {
          body: 'x',
          headers: crossSite('https://app.example'),
        });
        expect(allowed.status, `${method} ${path} from a listed origin`).not.toBe(403);
      }
    }
    // What a page on any website sends with fetch(..., {mode: 'no-cors'}): no Origin to trust.
    expect(
      (
        await send(base, 'POST', '/stage/x', {
          body: 'x',
          headers: { 'sec-fetch-site': 'cross-site' },
        })
      ).status,
    ).toBe(403);
    // Same origin, or a GET from anywhere, goes on to its route.
    expect(
      (
        await send(base, 'POST', '/api/login', {
          body: '{}',
          headers: { 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(400);
    expect(
      (await send(base, 'GET', '/stage/health', { headers: crossSite('https://evil.example') }))
        .status,
    ).toBe(200);
    const before = stage.received.length;
    for (const door of ['whip', 'whep']) {
      const offer = await send(base, 'POST', `/stage/${door}/N743AS`, {
        body: 'v=0\r\n',
        headers: {
          ...crossSite('https://evil.example'),
          'content-type': 'application/sdp',
          authorization: 'Bearer x',
        },
      });
      expect(offer.status).toBe(201);
    }
    expect(stage.received.length).toBe(before + 2);
  });
});
