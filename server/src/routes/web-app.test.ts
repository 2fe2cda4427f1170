import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { precompressDir } from '../../../web/scripts/precompress';
import { build, tempDir, testConfig } from '../test/helpers';
import { startStandInStage } from '../test/stand-in-stage';
import { acceptedEncoding } from './stage-sdk';
import { STAGE_UNREACHABLE } from './stage-proxy';

// Every route of the web app's one route table (web/src/config/paths.ts), read as text: a route
// added there and not here would answer 404 to a reload or a shared link.
const webRoutes = [
  ...readFileSync(join(import.meta.dirname, '../../../web/src/config/paths.ts'), 'utf8').matchAll(
    /path: '([^']+)'/g,
  ),
].map(([, path]) => (path ?? '').replace(/:[A-Za-z]+\??/g, 'N743AS'));

describe('web app', () => {
  it('knows every route of the web app', () => {
    expect(webRoutes).toEqual([
      '/',
      '/home',
      '/watch-all',
      '/recordings/N743AS',
      '/operations',
      '/player/N743AS',
    ]);
  });

  // `/recordings/:stageId?`: without its aircraft too, and with a moment's `t`.
  it.each([
    ...webRoutes,
    '/recordings',
    '/recordings/N743AS?t=2026-11-29T06:25:30Z',
    '/player/anything/else',
  ])('answers index.html for the app route %s, never cached', async (url) => {
    const { app } = await build();
    const response = await app.inject({ url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).toContain('<title>Tailcam</title>');
  });

  it('caches hashed assets for a year and revalidates other files', async () => {
    const { app } = await build();
    const asset = await app.inject({ url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const favicon = await app.inject({ url: '/favicon.svg' });
    expect(favicon.statusCode).toBe(200);
    expect(favicon.headers['cache-control']).toBe('no-cache');
  });

  it("sends the build's brotli or gzip copy to a browser that takes it, the file itself to one that does not", async () => {
    const webDistDir = join(tempDir(), 'dist');
    mkdirSync(join(webDistDir, 'assets'), { recursive: true });
    const script = `console.log(${JSON.stringify('a line of the app '.repeat(200))});`;
    const page = `<!doctype html><title>Tailcam</title>${'<p>x</p>'.repeat(300)}`;
    writeFileSync(join(webDistDir, 'assets', 'index-abc123.js'), script);
    writeFileSync(join(webDistDir, 'index.html'), page);
    // As the build writes them (web/scripts/precompress.ts).
    await precompressDir(webDistDir);
    const { app } = await build({ config: { webDistDir } });
    for (const [url, body] of [
      ['/assets/index-abc123.js', script],
      ['/player/N743AS', page],
    ] as const) {
      const brotli = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(brotli.statusCode, url).toBe(200);
      expect(brotli.headers['content-encoding'], url).toBe('br');
      expect(brotli.headers.vary, url).toMatch(/accept-encoding/i);
      expect(brotliDecompressSync(brotli.rawPayload).toString(), url).toBe(body);
      expect(brotli.rawPayload.length, url).toBeLessThan(body.length / 4);
      const gzip = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(gzip.headers['content-encoding'], url).toBe('gzip');
      expect(gunzipSync(gzip.rawPayload).toString(), url).toBe(body);
      const plain = await app.inject({ url });
      expect(plain.headers['content-encoding'], url).toBeUndefined();
      expect(plain.body, url).toBe(body);
    }
    // The cache headers are the file's own, whichever form is sent.
    const asset = await app.inject({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'br' },
    });
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers 404 for unknown files, and JSON 404 for unknown API routes', async () => {
    const { app } = await build();
    const missing = await app.inject({ url: '/assets/nope.js' });
    expect(missing.statusCode).toBe(404);
    const api = await app.inject({ url: '/api/users' });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ error: 'Not found: GET /api/users' });
    const apiPost = await app.inject({ method: 'POST', url: '/api/nothing', payload: {} });
    expect(apiPost.statusCode).toBe(404);
    expect(apiPost.json()).toEqual({ error: 'Not found: POST /api/nothing' });
    expect((await app.inject({ url: '/../package.json' })).statusCode).toBe(404);
  });

  it('never serves a source map, even one left in the built app', async () => {
    const webDistDir = join(tempDir(), 'dist');
    mkdirSync(join(webDistDir, 'assets'), { recursive: true });
    writeFileSync(join(webDistDir, 'index.html'), '<!doctype html><title>Tailcam</title>');
    const map = JSON.stringify({ version: 3, sourcesContent: ['const secretSource = 1;'] });
    for (const file of ['assets/index-abc123.js.map', 'assets/index-abc123.css.map', 'app.map']) {
      writeFileSync(join(webDistDir, file), map);
    }
    writeFileSync(join(webDistDir, 'assets', 'index-abc123.js'), 'console.log("app")');
    const { app } = await build({ config: { webDistDir } });
    for (const url of [
      '/assets/index-abc123.js.map',
      '/assets/index-abc123.js.MAP',
      '/assets/index-abc123.js.%6dap',
      '/assets/index-abc123.css.map',
      '/assets/./index-abc123.js.map',
      '/app.map?download=1',
    ]) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.body, url).not.toContain('secretSource');
    }
    expect((await app.inject({ url: '/assets/index-abc123.js' })).statusCode).toBe(200);
  });

  it('answers a clear 503 on the app routes when the web app is not built', async () => {
    const { app } = await build({ config: { webDistDir: join(tempDir(), 'dist') } });
    for (const url of ['/', '/home', '/player/N743AS']) {
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(503);
      expect(response.body).toMatch(
        /web app is not built: .*index\.html is missing\. Run `npm run build`/,
      );
    }
    expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
  });

  it('serves the web app once it is built, without a restart', async () => {
    const webDistDir = join(tempDir(), 'dist');
    const { app } = await build({ config: { webDistDir } });
    expect((await app.inject({ url: '/home' })).statusCode).toBe(503);
    mkdirSync(webDistDir);
    writeFileSync(join(webDistDir, 'index.html'), '<!doctype html><title>Tailcam</title>');
    expect((await app.inject({ url: '/home' })).statusCode).toBe(200);
  });
});

describe('/sdk/stage.js', () => {
  it('serves the real Amazon IVS SDK file with the ivs provider, as UTF-8 JavaScript', async () => {
    const config = testConfig({ stageProvider: 'ivs' });
    const { app } = await build({ config });
    const response = await app.inject({ url: '/sdk/stage.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(response.rawPayload.equals(readFileSync(config.ivs.sdkFile))).toBe(true);
    expect(response.body).toContain('live-video.net');
    const again = await app.inject({
      url: '/sdk/stage.js',
      headers: { 'if-none-match': String(response.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it('redirects to IVS_SDK_URL when one is configured, and allows that origin in the CSP', async () => {
    const sdkUrl = 'https://web-broadcast.live-video.net/1.41.0/amazon-ivs-web-broadcast.js';
    const base = testConfig({ stageProvider: 'ivs' });
    const { app } = await build({
      config: { stageProvider: 'ivs', ivs: { ...base.ivs, sdkUrl } },
    });
    const response = await app.inject({ url: '/sdk/stage.js' });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(sdkUrl);
    expect(response.headers['content-security-policy']).toContain(
      "script-src 'self' https://web-broadcast.live-video.net;",
    );
  });

  it('serves the local stage SDK bundle with the local provider', async () => {
    const { app, config } = await build();
    const response = await app.inject({ url: '/sdk/stage.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(response.body).toBe(readFileSync(config.localStage.sdkFile, 'utf8'));
  });

  it('sends the SDK compressed to a browser that takes it, once its compressed form is made', async () => {
    const base = testConfig();
    const sdkFile = join(tempDir(), 'stage.js');
    writeFileSync(sdkFile, `window.sdk = ${JSON.stringify('the local stage SDK '.repeat(500))};`);
    const { app } = await build({
      config: { localStage: { ...base.localStage, sdkFile } },
    });
    const file = readFileSync(sdkFile);
    const ask = () =>
      app.inject({ url: '/sdk/stage.js', headers: { 'accept-encoding': 'gzip, br' } });
    // The first request starts the compression and is not kept waiting for it.
    const first = await ask();
    expect(first.statusCode).toBe(200);
    expect(first.headers.vary).toMatch(/accept-encoding/i);
    let response = first;
    for (let tries = 0; tries < 100 && response.headers['content-encoding'] !== 'br'; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      response = await ask();
    }
    expect(response.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(response.rawPayload).equals(file)).toBe(true);
    expect(response.rawPayload.length).toBeLessThan(file.length / 2);
    const gzipped = await app.inject({
      url: '/sdk/stage.js',
      headers: { 'accept-encoding': 'gzip, br;q=0' },
    });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.rawPayload).equals(file)).toBe(true);
    const plain = await app.inject({ url: '/sdk/stage.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.equals(file)).toBe(true);
  });

  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip;q=0.5', 'gzip'],
    ['GZIP ; q=1', 'gzip'],
    ['identity', undefined],
    ['', undefined],
    [undefined, undefined],
  ] as const)('takes Accept-Encoding %j as %s', (header, encoding) => {
    expect(acceptedEncoding(header)).toBe(encoding);
  });

  it("serves the local SDK's in-band worker beside it, and nothing of the kind with ivs", async () => {
    const { app, config } = await build();
    const response = await app.inject({ url: '/sdk/in-band-worker.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(response.body).toBe(
      readFileSync(join(dirname(config.localStage.sdkFile), 'in-band-worker.js'), 'utf8'),
    );
    const { app: ivs } = await build({ config: testConfig({ stageProvider: 'ivs' }) });
    expect((await ivs.inject({ url: '/sdk/in-band-worker.js' })).statusCode).toBe(404);
  });

  it('answers a clear 503 naming the missing local SDK bundle', async () => {
    const base = testConfig();
    const sdkFile = join(base.repoRoot, 'local-stage', 'dist', 'no-such-stage-sdk.js');
    const { app } = await build({ config: { localStage: { ...base.localStage, sdkFile } } });
    const response = await app.inject({ url: '/sdk/stage.js' });
    expect(response.statusCode).toBe(503);
    expect(response.body).toContain(
      'The local stage SDK is not built: local-stage/dist/no-such-stage-sdk.js is missing. Run `npm run build`',
    );
  });
});

/** A stand-in for the local stage: echoes HTTP requests and accepts WebSocket upgrades. */
async function fakeStage(): Promise<string> {
  const stage = await startStandInStage((request, res) => {
    res.writeHead(201, { 'content-type': 'text/plain', location: '/stage/echo/p-1' });
    res.end(
      `${request.method} ${request.url} ${request.headers['content-type']} ${request.body.toString()}`,
    );
  });
  stage.server.on('upgrade', (req, socket) => {
    const accept = createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    const message = Buffer.from(`hello ${req.url}`);
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    socket.write(Buffer.concat([Buffer.from([0x81, message.length]), message]));
  });
  return stage.url;
}

/** Opens a WebSocket through `base` and resolves with the first text frame received. */
function firstWebSocketMessage(base: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'),
      },
    });
    req.on('upgrade', (_res, socket, head) => {
      let buffered = head;
      const read = (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        if (buffered.length >= 2 && buffered.length >= 2 + buffered[1]!) {
          socket.destroy();
          resolve(buffered.subarray(2, 2 + buffered[1]!).toString());
        }
      };
      socket.on('data', read);
      read(Buffer.alloc(0));
    });
    req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
    req.on('error', reject);
    req.end();
  });
}

describe('local stage proxy', () => {
  it('forwards WHIP and WHEP requests unchanged, prefix kept, and nothing else under /stage/ but its health', async () => {
    const upstream = await fakeStage();
    const base = testConfig();
    const { app } = await build({ config: { localStage: { ...base.localStage, url: upstream } } });
    const response = await app.inject({
      method: 'POST',
      url: '/stage/whep/N743AS?x=1',
      headers: { 'content-type': 'application/sdp' },
      payload: 'v=0\r\n',
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers.location).toBe('/stage/echo/p-1');
    expect(response.body).toBe('POST /stage/whep/N743AS?x=1 application/sdp v=0\r\n');
    const elsewhere = await app.inject({ method: 'POST', url: '/stage/echo', payload: 'v=0' });
    expect(elsewhere.statusCode).toBe(404);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    // SDP offers are bigger than the API's 4 KiB body limit; the WHIP door passes them untouched.
    const offer = `v=0\r\n${'a=candidate:1 1 udp 2122260223 192.0.2.1 50000 typ host\r\n'.repeat(400)}`;
    const big = await app.inject({
      method: 'POST',
      url: '/stage/whip/N743AS',
      headers: { 'content-type': 'application/sdp' },
      payload: offer,
    });
    expect(big.statusCode).toBe(201);
    expect(big.body).toBe(`POST /stage/whip/N743AS application/sdp ${offer}`);
  });

  it('forwards WebSocket upgrades under /stage/', async () => {
    const upstream = await fakeStage();
    const base = testConfig();
    const { app } = await build({ config: { localStage: { ...base.localStage, url: upstream } } });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    expect(await firstWebSocketMessage(address, '/stage/events')).toBe('hello /stage/events');
  });

  it('answers a JSON 502 when the stage is down, and keeps serving the API', async () => {
    const { app } = await build();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const response = await fetch(`${address}/stage/whip/N743AS`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: 'v=0',
    });
    expect(response.status).toBeGreaterThanOrEqual(502);
    expect(response.status).toBeLessThanOrEqual(503);
    expect(await response.json()).toEqual({ error: STAGE_UNREACHABLE });
    expect((await fetch(`${address}/api/health`)).status).toBe(200);
  });

  it('proxies only /stage/, and nothing at all with the ivs provider', async () => {
    const upstream = await fakeStage();
    const base = testConfig();
    const local = await build({ config: { localStage: { ...base.localStage, url: upstream } } });
    expect((await local.app.inject({ url: '/stages' })).statusCode).toBe(404);
    const ivs = await build({
      config: { stageProvider: 'ivs', localStage: { ...base.localStage, url: upstream } },
    });
    expect((await ivs.app.inject({ url: '/stage/events' })).statusCode).toBe(404);
  });
});
