/**
 * The metrics endpoint (decision 0097): an exposed endpoint without a token refuses to start,
 * a token is asked for when set, the logins and thumbnails are counted by outcome and every
 * request by its route's template (never the path asked for, never a user), and the local
 * stage's figures follow the API's, with `tailcam_stage_up` saying whether they came.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { segmentFileName, spanName } from '@tailcam/protocol/recordings';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { startLocalStage, type RunningStage } from '@tailcam/local-stage/start';
import { ConfigError, parseConfig } from '../config';
import { build, repoRoot, stageTokenSecret, tempDir } from '../test/helpers';
import { ApiMetrics, RECORDINGS_READ_MS } from './api-metrics';
import { isLoopbackHost } from './metrics-config';
import { startMetricsServer, type RunningMetricsServer } from './metrics-server';

const TOKEN = 'a-scrape-token-of-24-chars';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function metricsServer(
  options: Partial<Parameters<typeof startMetricsServer>[0]> = {},
): Promise<RunningMetricsServer> {
  const server = await startMetricsServer({
    settings: { host: '127.0.0.1', port: 0, token: undefined },
    api: new ApiMetrics({ aircraft: STREAM_IDS }),
    ...options,
  });
  cleanups.push(() => server.close());
  return server;
}

/** Every `name="value"` label of the text's samples. */
function labels(text: string): { name: string; value: string }[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .flatMap((line) =>
      [...line.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => ({
        name: name!,
        value: value!,
      })),
    );
}

describe('the metrics configuration', () => {
  it('listens on loopback, port 9464, without a token by default', () => {
    expect(parseConfig({}, repoRoot).metrics).toEqual({
      host: '127.0.0.1',
      port: 9464,
      token: undefined,
    });
  });

  it('refuses to start exposed on another address without METRICS_TOKEN, saying why', () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10', 'metrics.example']) {
      expect(() => parseConfig({ METRICS_HOST: host }, repoRoot)).toThrow(ConfigError);
      try {
        parseConfig({ METRICS_HOST: host }, repoRoot);
      } catch (error) {
        expect((error as ConfigError).message).toContain(
          `METRICS_TOKEN: required when METRICS_HOST (${host}) is not a loopback address`,
        );
      }
    }
    expect(
      parseConfig({ METRICS_HOST: '0.0.0.0', METRICS_TOKEN: TOKEN }, repoRoot).metrics,
    ).toEqual({ host: '0.0.0.0', port: 9464, token: TOKEN });
    expect(() => parseConfig({ METRICS_TOKEN: 'short' }, repoRoot)).toThrow(
      'METRICS_TOKEN: must be at least 16 characters',
    );
  });

  it('takes 127.0.0.0/8, ::1 and localhost as loopback, and nothing else', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'example.com', '']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});

describe('GET /metrics', () => {
  it('needs the token when one is set, and answers nothing but /metrics', async () => {
    const server = await metricsServer({
      settings: { host: '127.0.0.1', port: 0, token: TOKEN },
    });
    const without = await fetch(server.url);
    expect(without.status).toBe(401);
    expect(await without.text()).toBe('The metrics need METRICS_TOKEN as a Bearer token\n');
    const wrong = await fetch(server.url, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    const right = await fetch(server.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(right.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    expect(await right.text()).toContain('# TYPE tailcam_logins_total counter');
    const elsewhere = await fetch(server.url.replace('/metrics', '/api/login'));
    expect(elsewhere.status).toBe(404);
    expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
  });

  it('counts logins by outcome and requests by route template, with no user or path', async () => {
    const api = new ApiMetrics({ aircraft: STREAM_IDS });
    const { app, addUser } = await build({ deps: { metrics: api } });
    await addUser('alice', 'correct horse');
    await addUser('bob', 'battery staple');
    const login = (username: string, password: string) =>
      app.inject({ method: 'POST', url: '/api/login', payload: { username, password } });
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await login('alice', 'wrong')).statusCode).toBe(401);
    }
    expect((await login('alice', 'correct horse')).statusCode).toBe(429);
    expect((await login('bob', 'battery staple')).statusCode).toBe(200);
    await app.inject({ method: 'GET', url: '/api/thumbnails/N743AS' });
    await app.inject({ method: 'GET', url: '/api/no/such/path/alice' });

    const text = await api.registry.metrics();
    expect(text).toContain('tailcam_logins_total{outcome="ok"} 1');
    expect(text).toContain('tailcam_logins_total{outcome="refused"} 10');
    expect(text).toContain('tailcam_logins_total{outcome="limited"} 1');
    expect(text).toContain('tailcam_thumbnail_answers_total{outcome="refused"} 1');
    expect(text).toContain(
      'tailcam_http_request_duration_seconds_count{route="/api/login",method="POST",status_class="4xx"} 11',
    );
    expect(text).toContain(
      'tailcam_http_request_duration_seconds_count{route="/api/thumbnails/:streamId",method="GET",status_class="4xx"} 1',
    );
    expect(text).toContain('route="unmatched",method="GET",status_class="4xx"');
    const routes = new Set(
      labels(text)
        .filter((label) => label.name === 'route')
        .map((l) => l.value),
    );
    expect([...routes].sort()).toEqual(['/api/login', '/api/thumbnails/:streamId', 'unmatched']);
    expect(text).not.toContain('alice');
    expect(text).not.toContain('N743AS');
  });

  it("reads the recordings' disk before the recorder has made their directory", async () => {
    const api = new ApiMetrics({
      aircraft: STREAM_IDS,
      recordingsDir: join(tempDir(), 'not-made-yet', 'recordings'),
    });
    const text = await api.registry.metrics();
    const free = /^tailcam_recordings_disk_free_bytes (\d+)$/m.exec(text)?.[1];
    expect(Number(free)).toBeGreaterThan(0);
    expect(text).toContain('tailcam_recordings_bytes{aircraft="N743AS"} 0');
  });

  it("counts the recorder's finished segments as written once, through retention's removals", async () => {
    const dir = tempDir();
    const segment = (spanStartMs: number, offsetMs: number, bytes: number) => {
      const span = join(dir, 'N743AS', spanName(spanStartMs));
      mkdirSync(span, { recursive: true });
      const path = join(span, segmentFileName({ offsetMs, durationMs: 6000, container: 'webm' }));
      writeFileSync(path, Buffer.alloc(bytes));
      return path;
    };
    let now = 0;
    const api = new ApiMetrics({ aircraft: STREAM_IDS, recordingsDir: dir, now: () => now });
    const figures = async () => {
      const text = await api.registry.metrics();
      const value = (name: string) =>
        Number(new RegExp(`^${name}\\{aircraft="N743AS"\\} (\\d+)$`, 'm').exec(text)?.[1]);
      return {
        written: value('tailcam_recorder_written_bytes_total'),
        onDisk: value('tailcam_recordings_bytes'),
      };
    };
    const first = segment(1_000_000, 0, 1000);
    expect(await figures()).toEqual({ written: 1000, onDisk: 1000 });
    segment(1_000_000, 6000, 500);
    rmSync(first);
    expect(await figures(), 'read again only after 30 s').toEqual({ written: 1000, onDisk: 1000 });
    now += RECORDINGS_READ_MS;
    expect(await figures()).toEqual({ written: 1500, onDisk: 500 });
    rmSync(join(dir, 'N743AS', spanName(1_000_000)), { recursive: true });
    segment(2_000_000, 0, 200);
    now += RECORDINGS_READ_MS;
    expect(await figures()).toEqual({ written: 1700, onDisk: 200 });
  });

  it("appends the local stage's figures, and says when the stage does not answer", async () => {
    const stage: RunningStage = await startLocalStage({
      host: '127.0.0.1',
      port: 0,
      secret: stageTokenSecret,
      faultsEnabled: false,
    });
    cleanups.push(() => stage.close());
    const server = await metricsServer({ stage: { url: stage.url, secret: stageTokenSecret } });
    const text = await (await fetch(server.url)).text();
    expect(text).toContain('tailcam_stage_up 1');
    expect(text).toContain('tailcam_aircraft_viewers{aircraft="N743AS"} 0');
    expect(text).toContain('# TYPE tailcam_logins_total counter');
    for (const { name, value } of labels(text)) {
      if (name === 'aircraft') expect(STREAM_IDS).toContain(value);
    }

    const wrongSecret = await metricsServer({
      stage: {
        url: stage.url,
        secret: new TextEncoder().encode('not-the-stage-secret-of-any-length'),
      },
    });
    const refused = await (await fetch(wrongSecret.url)).text();
    expect(refused).toContain('tailcam_stage_up 0');
    expect(refused).not.toContain('tailcam_aircraft_viewers');
    expect(refused).toContain('# TYPE tailcam_logins_total counter');
  });
});
