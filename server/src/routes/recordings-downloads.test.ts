/**
 * The recordings routes' bounds (decision 0081), against a real listener where the
 * socket matters: a download remuxed off the API's thread, bounded per account and in all, ended
 * with every file closed when its reader goes (20 downloads aborted; 100, a soak, with
 * TAILCAM_LONG_TESTS=1), with the security headers, one log line each; the list served from the
 * recorder's index and bounded per account.
 */
import { appendFileSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BufferTarget,
  EncodedAudioPacketSource,
  EncodedPacket,
  EncodedVideoPacketSource,
  Output,
  WebMOutputFormat,
} from 'mediabunny';
import {
  SEGMENT_INDEX_FILE,
  segmentFileName,
  segmentIndexLine,
  spanName,
} from '@tailcam/protocol/recordings';
import type { AppConfig } from '../app';
import { build, tempDir } from '../test/helpers';

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const SPAN = spanName(T0);
const KEY = Uint8Array.from([0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00]);
const DELTA = Uint8Array.from([0x51, 0x02, 0x00]);
const OPUS_SILENCE = Uint8Array.from([0xf8, 0xff, 0xfe]);

/**
 * A 2 s WebM segment as the recorder writes one: VP8 at 30 fps, frames of `frameBytes`, and Opus
 * every 20 ms (the packets, not the bytes, are what a remux costs).
 */
async function segment(frameBytes: number): Promise<Buffer> {
  const target = new BufferTarget();
  const output = new Output({ format: new WebMOutputFormat(), target });
  const video = new EncodedVideoPacketSource('vp8');
  const audio = new EncodedAudioPacketSource('opus');
  output.addVideoTrack(video);
  output.addAudioTrack(audio);
  await output.start();
  for (let index = 0; index < 60; index += 1) {
    const head = index === 0 ? KEY : DELTA;
    const data = new Uint8Array(Math.max(frameBytes, head.length));
    data.set(head);
    const packet = new EncodedPacket(data, index === 0 ? 'key' : 'delta', index / 30, 1 / 30);
    await video.add(
      packet,
      index === 0
        ? { decoderConfig: { codec: 'vp8', codedWidth: 320, codedHeight: 180 } }
        : undefined,
    );
  }
  for (let index = 0; index < 100; index += 1) {
    await audio.add(
      new EncodedPacket(OPUS_SILENCE, 'key', index / 50, 0.02),
      index === 0
        ? { decoderConfig: { codec: 'opus', numberOfChannels: 2, sampleRate: 48_000 } }
        : undefined,
    );
  }
  await output.finalize();
  return Buffer.from(target.buffer ?? new ArrayBuffer(0));
}

/** N743AS's span SPAN: `count` abutting 2 s segments, listed in its index as the recorder does. */
async function recordedSpan(count: number, frameBytes: number): Promise<string> {
  const root = tempDir('tailcam-recordings-');
  const dir = join(root, 'N743AS', SPAN);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'span.json'),
    JSON.stringify({ container: 'webm', codecs: 'vp8', publisher: 'camera' }),
  );
  const bytes = await segment(frameBytes);
  for (let index = 0; index < count; index += 1) {
    const name = segmentFileName({ offsetMs: index * 2000, durationMs: 2000, container: 'webm' });
    writeFileSync(join(dir, name), bytes);
    appendFileSync(
      join(dir, SEGMENT_INDEX_FILE),
      segmentIndexLine({
        change: 'added',
        name,
        segment: { offsetMs: index * 2000, durationMs: 2000, container: 'webm' },
        bytes: bytes.length,
      }),
    );
  }
  return root;
}

/** The files this process holds open under `dir` (its recordings), from /proc/self/fd. */
function openFilesUnder(dir: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(join('/proc/self/fd', fd));
      if (target.startsWith(dir)) open.push(target);
    } catch {
      // Closed between the listing and the read.
    }
  }
  return open;
}

interface Listening {
  port: number;
  recordingsDir: string;
  logLines: Record<string, unknown>[];
  tokens: string[];
}

const sockets: IncomingMessage[] = [];
afterEach(() => {
  for (const response of sockets.splice(0)) response.destroy();
});

async function listening(
  recordingsDir: string,
  limits: Partial<AppConfig['recordingLimits']> = {},
  accounts = ['alice'],
): Promise<Listening> {
  const logLines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').trim().split('\n')) {
          const parsed: unknown = JSON.parse(line);
          if (typeof parsed === 'object' && parsed !== null) {
            logLines.push(Object.fromEntries(Object.entries(parsed)));
          }
        }
        done();
      },
    }),
  );
  const test = await build({
    config: {
      recordingsDir,
      recordingLimits: {
        downloadsPerAccount: 1,
        downloadsMax: 2,
        listPerMinute: 60,
        ...limits,
      },
    },
    deps: { logger },
  });
  const tokens: string[] = [];
  for (const name of accounts) {
    await test.addUser(name, 'correct horse');
    tokens.push(await test.login(name, 'correct horse'));
  }
  await test.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = test.app.server.address() as AddressInfo;
  return { port, recordingsDir, logLines, tokens };
}

/** A GET whose answer is handed over unread (paused): the caller reads, pauses or aborts it. */
function get(port: number, path: string, token: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}` } },
      (response) => {
        response.pause();
        sockets.push(response);
        resolve(response);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function body(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  response.resume();
  for await (const chunk of response) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** The 95th percentile: the value below which 95 % of the samples lie. */
function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? 0;
}

const downloadPath = `/api/recordings/N743AS/${SPAN}/download`;
/** Downloads aborted mid-way, ten at a time: 20, and the soak's 100 with TAILCAM_LONG_TESTS=1. */
const ABORTED_DOWNLOADS = process.env.TAILCAM_LONG_TESTS === '1' ? 100 : 20;

describe('a recording download', () => {
  it('that cannot be remuxed answers a JSON error naming no file, and the server goes on', async () => {
    const root = await recordedSpan(2, 200);
    const dir = join(root, 'N743AS', SPAN);
    for (const name of readdirSync(dir).filter((each) => each.endsWith('.webm'))) {
      writeFileSync(join(dir, name), Buffer.from('not a WebM file at all'));
    }
    const { port, tokens } = await listening(root);
    const response = await get(port, `${downloadPath}?from=${T0}&to=${T0 + 4000}`, tokens[0]!);
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['content-disposition']).toBeUndefined();
    expect(JSON.parse((await body(response)).toString('utf8'))).toEqual({
      error: 'Internal server error',
    });
    const list = await get(port, '/api/recordings', tokens[0]!);
    expect(list.statusCode).toBe(200);
  });

  it(`leaves no recording file open after ${ABORTED_DOWNLOADS} downloads aborted mid-way, and logs each one`, async () => {
    // 60 segments of 60 frames of 8 KB: 29 MB a download, far more than a socket holds.
    const product = await listening(await recordedSpan(60, 8_000), {
      downloadsPerAccount: ABORTED_DOWNLOADS,
      downloadsMax: ABORTED_DOWNLOADS,
    });
    for (let batch = 0; batch < ABORTED_DOWNLOADS / 10; batch += 1) {
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => get(product.port, downloadPath, product.tokens[0]!)),
      );
      for (const response of responses) {
        expect(response.statusCode).toBe(200);
        // The first bytes, then the reader goes.
        await new Promise<void>((resolve) => {
          response.once('data', () => resolve());
          response.resume();
        });
        response.destroy();
      }
    }
    await vi.waitFor(() => expect(openFilesUnder(product.recordingsDir)).toEqual([]), {
      timeout: 10_000,
      interval: 50,
    });
    // Each download's line comes once its worker has exited: then nothing can open a file again.
    const downloadLines = () =>
      product.logLines.filter((line) => line.msg === 'recording download');
    await vi.waitFor(() => expect(downloadLines()).toHaveLength(ABORTED_DOWNLOADS), {
      timeout: 20_000,
      interval: 50,
    });
    expect(openFilesUnder(product.recordingsDir)).toEqual([]);
    const lines = downloadLines();
    expect(lines.map((line) => line.outcome)).toEqual(Array(ABORTED_DOWNLOADS).fill('aborted'));
    for (const line of lines) {
      expect(line).toMatchObject({ stageId: 'N743AS', span: SPAN, bytes: expect.any(Number) });
      expect(JSON.stringify(line)).not.toMatch(/Bearer|authorization|eyJ/i);
    }
  }, 120_000);

  it('keeps /api/health quick while 10 downloads of a long span run', async () => {
    // 100 segments (3 min 20 s) of small frames: many packets, the remux's real cost, for the
    // 2-3 s that /api/health is asked every 50 ms meanwhile.
    const product = await listening(await recordedSpan(100, 200), {
      downloadsPerAccount: 10,
      downloadsMax: 10,
    });
    const downloads = Array.from({ length: 10 }, async () => {
      const response = await get(product.port, downloadPath, product.tokens[0]!);
      expect(response.statusCode).toBe(200);
      return (await body(response)).length;
    });
    const loopBefore = performance.eventLoopUtilization();
    let running = true;
    const all = Promise.all(downloads).finally(() => {
      running = false;
    });
    const latencies: number[] = [];
    while (running) {
      const started = performance.now();
      const health = await fetch(`http://127.0.0.1:${product.port}/api/health`);
      await health.arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const sizes = await all;
    const loopBusy = performance.eventLoopUtilization(loopBefore).utilization;
    for (const size of sizes) expect(size).toBeGreaterThan(100_000);
    expect(latencies.length).toBeGreaterThan(5);
    // 50 ms p95 is the target (bench/recording-downloads.ts, docs/benchmarks.md); on a loaded
    // two-core machine ten workers and the test share the cores, so the test holds a looser bound
    // on the answers, and the API thread's own busy share, which no other load moves much.
    expect(p95(latencies)).toBeLessThan(200);
    // What the remux on the API's thread did: that thread busy ~98 % of the time (p95 of health
    // 89 ms, max 151 ms here at load 10); in workers ~13 %.
    expect(loopBusy).toBeLessThan(0.5);
  }, 120_000);

  it('answers a second download of the same account 429 with Retry-After, and one past the bound in all', async () => {
    const product = await listening(
      await recordedSpan(60, 8_000),
      { downloadsPerAccount: 1, downloadsMax: 2 },
      ['alice', 'bob', 'carol'],
    );
    const [alice, bob, carol] = product.tokens as [string, string, string];
    const first = await get(product.port, downloadPath, alice);
    expect(first.statusCode).toBe(200);
    const again = await get(product.port, downloadPath, alice);
    expect(again.statusCode).toBe(429);
    expect(again.headers['retry-after']).toBe('10');
    expect(JSON.parse((await body(again)).toString()).error).toBe(
      'This account is downloading already; try again in 10 seconds',
    );
    const second = await get(product.port, downloadPath, bob);
    expect(second.statusCode).toBe(200);
    const third = await get(product.port, downloadPath, carol);
    expect(third.statusCode).toBe(429);
    expect(third.headers['retry-after']).toBe('10');
    expect(JSON.parse((await body(third)).toString()).error).toBe(
      'Too many downloads at once; try again in 10 seconds',
    );
    // A finished download frees its slot.
    first.destroy();
    await vi.waitFor(
      async () => {
        const retry = await get(product.port, downloadPath, carol);
        retry.destroy();
        expect(retry.statusCode).toBe(200);
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it('carries the security headers and the request id like every other answer', async () => {
    const product = await listening(await recordedSpan(3, 200));
    const response = await get(product.port, downloadPath, product.tokens[0]!);
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'content-security-policy': expect.stringContaining("default-src 'self'"),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'cache-control': 'private, no-store',
      'content-disposition': 'attachment; filename="N743AS-2026-11-29T09-00-00-000Z.webm"',
    });
    expect((await body(response)).length).toBeGreaterThan(1000);
  });
});

describe('GET /api/recordings from the index', () => {
  it('lists what the index says, reading on from where the last call stopped', async () => {
    const recordingsDir = await recordedSpan(3, 200);
    const dir = join(recordingsDir, 'N743AS', SPAN);
    // A segment file the index does not name: the list never reads the directory.
    writeFileSync(
      join(dir, segmentFileName({ offsetMs: 60_000, durationMs: 2000, container: 'webm' })),
      'x',
    );
    const product = await listening(recordingsDir);
    const names = async () => {
      const response = await fetch(`http://127.0.0.1:${product.port}/api/recordings`, {
        headers: { authorization: `Bearer ${product.tokens[0]}` },
      });
      expect(response.status).toBe(200);
      const answer: unknown = await response.json();
      return JSON.stringify(answer).match(/\d{10}-\d+\.webm/g) ?? [];
    };
    expect(await names()).toEqual([
      '0000000000-2000.webm',
      '0000002000-2000.webm',
      '0000004000-2000.webm',
    ]);
    const added = segmentFileName({ offsetMs: 6000, durationMs: 2000, container: 'webm' });
    appendFileSync(
      join(dir, SEGMENT_INDEX_FILE),
      segmentIndexLine({
        change: 'added',
        name: added,
        segment: { offsetMs: 6000, durationMs: 2000, container: 'webm' },
        bytes: 10,
      }) + '-0000000000-2000.webm\n+0000008000-20',
    );
    // The half-written last line waits for its end.
    expect(await names()).toEqual([
      '0000002000-2000.webm',
      '0000004000-2000.webm',
      '0000006000-2000.webm',
    ]);
    appendFileSync(join(dir, SEGMENT_INDEX_FILE), '00.webm 10\n');
    expect((await names()).at(-1)).toBe('0000008000-2000.webm');
  });

  it('answers a list past RECORDINGS_LIST_PER_MINUTE 429 with Retry-After', async () => {
    const product = await listening(await recordedSpan(1, 200), { listPerMinute: 2 });
    const list = () =>
      fetch(`http://127.0.0.1:${product.port}/api/recordings`, {
        headers: { authorization: `Bearer ${product.tokens[0]}` },
      });
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    const refused = await list();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /^Too many recording lists for this account; try again in \d+ seconds$/,
    );
  });
});
