import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../test/helpers';
import { backoffMs, WebhookQueue, type QueueLog } from './webhook-queue';
import { verifyWebhook } from './webhook-signature';

const secret = new TextEncoder().encode('test-webhook-secret-that-is-32-chars-long');
const quick = { baseMs: 10, maxMs: 40 };

interface Received {
  body: string;
  valid: boolean;
}

/** A consumer on 127.0.0.1 that answers `status()` and keeps what it took (2xx). */
async function consumer(status: () => number = () => 200) {
  const received: Received[] = [];
  const attempts: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      attempts.push(body);
      const code = status();
      if (code >= 200 && code < 300) {
        received.push({
          body,
          valid: verifyWebhook({
            secret,
            body,
            timestamp: request.headers['tailcam-timestamp'] as string | undefined,
            signature: request.headers['tailcam-signature'] as string | undefined,
            nowSeconds: Date.now() / 1000,
          }),
        });
      }
      response.writeHead(code).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?token=abc`;
  return { url, received, attempts, server };
}

const servers: Server[] = [];
const queues: WebhookQueue[] = [];

afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function log(): QueueLog & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (details, message) => lines.push(`${message} ${JSON.stringify(details)}`),
    warn: (details, message) => lines.push(`${message} ${JSON.stringify(details)}`),
  };
}

async function open(
  dir: string,
  url: string,
  options: { maxEvents?: number; logger?: QueueLog } = {},
) {
  const queue = await WebhookQueue.open({
    dir,
    url,
    secret,
    maxEvents: options.maxEvents ?? 100,
    log: options.logger ?? log(),
    retry: quick,
    random: () => 0.5,
  });
  queues.push(queue);
  return queue;
}

const event = (n: number) => JSON.stringify({ id: `e${n}` });

describe('webhook queue', () => {
  it('delivers every event in order, signed, and removes each from disk once taken', async () => {
    const { url, received } = await consumer();
    const dir = tempDir();
    const queue = await open(dir, url);
    for (let n = 1; n <= 3; n++) await queue.add(event(n));
    queue.start();
    await vi.waitFor(() => expect(received).toHaveLength(3));
    expect(received.map((each) => each.body)).toEqual([event(1), event(2), event(3)]);
    expect(received.every((each) => each.valid)).toBe(true);
    await vi.waitFor(() => expect(readdirSync(dir)).toEqual([]));
    expect(queue.counts).toMatchObject({ delivered: 3, dropped: 0 });
  });

  it('retries a refused event with backoff until the consumer takes it, never skipping it', async () => {
    let answers = [500, 503, 200];
    const { url, received, attempts } = await consumer(() => answers.shift() ?? 200);
    const logger = log();
    const queue = await open(tempDir(), url, { logger });
    await queue.add(event(1));
    await queue.add(event(2));
    queue.start();
    await vi.waitFor(() => expect(received).toHaveLength(2));
    expect(attempts).toEqual([event(1), event(1), event(1), event(2)]);
    expect(queue.counts.failedAttempts).toBe(2);
    // The log names the consumer's origin only: its query may hold a token.
    expect(logger.lines.join('\n')).toContain('answered 500');
    expect(logger.lines.join('\n')).not.toContain('token=abc');
    answers = [];
  });

  it('keeps what a consumer did not take on disk, and delivers it after a restart', async () => {
    const down = await consumer(() => 503);
    const dir = tempDir();
    const first = await open(dir, down.url);
    for (let n = 1; n <= 4; n++) await first.add(event(n));
    first.start();
    await vi.waitFor(() => expect(down.attempts.length).toBeGreaterThan(0));
    await first.close();
    expect(readdirSync(dir)).toHaveLength(4);

    const up = await consumer();
    const second = await open(dir, up.url);
    await second.add(event(5));
    second.start();
    await vi.waitFor(() => expect(up.received).toHaveLength(5));
    expect(up.received.map((each) => each.body)).toEqual([1, 2, 3, 4, 5].map(event));
  });

  it('holds at most its bound for a dead consumer: the oldest are dropped, counted and logged', async () => {
    const dir = tempDir();
    const logger = log();
    const queue = await open(dir, 'http://127.0.0.1:9/never', { maxEvents: 10, logger });
    for (let n = 1; n <= 25; n++) await queue.add(event(n));
    expect(readdirSync(dir)).toHaveLength(10);
    expect(queue.queued).toBe(10);
    expect(queue.counts.dropped).toBe(15);
    expect(logger.lines.filter((line) => line.includes('queue full'))).toHaveLength(1);

    // Reopened with a smaller bound, it drops down to it too.
    await queue.close();
    const smaller = await open(dir, 'http://127.0.0.1:9/never', { maxEvents: 4 });
    expect(readdirSync(dir)).toHaveLength(4);
    expect(smaller.counts.dropped).toBe(6);
  });

  it('waits twice as long after each failure, up to its cap, with jitter within half of it', () => {
    const retry = { baseMs: 1_000, maxMs: 300_000 };
    expect([1, 2, 3, 4].map((n) => backoffMs(n, retry, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => backoffMs(n, retry, () => 0.999_999))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
    expect(backoffMs(30, retry, () => 0.5)).toBe(225_000);
  });
});
