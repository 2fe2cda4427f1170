/**
 * loopbackJson against a real HTTP server: answers, refusals, late answers and aborts; and a
 * held answer (the stage's long polls) runs no timer in the asking process while it waits, as
 * `fetch` did (its 499 ms tick).
 */
import { createHook } from 'node:async_hooks';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackJson } from './loopback-json';

const HOLD_MS = 1_500;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/held') return void setTimeout(() => answer(200, { held: true }), HOLD_MS);
    if (request.url === '/refused') return answer(409, { error: 'no' });
    if (request.url === '/echo') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () =>
        answer(200, { method: request.method, body: JSON.parse(Buffer.concat(chunks).toString()) }),
      );
      return;
    }
    answer(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('loopbackJson', () => {
  it('sends the JSON body and resolves with the answer', async () => {
    await expect(
      loopbackJson(`${url}/echo`, { method: 'PUT', body: { a: 1 }, timeoutMs: 2_000 }),
    ).resolves.toEqual({ method: 'PUT', body: { a: 1 } });
  });

  it('rejects a refusal with its status, a late answer and an abort', async () => {
    await expect(loopbackJson(`${url}/refused`, { timeoutMs: 2_000 })).rejects.toThrow(
      'the local stage answered 409',
    );
    await expect(loopbackJson(`${url}/held`, { timeoutMs: 200 })).rejects.toThrow(
      'no answer in 200 ms',
    );
    const abort = new AbortController();
    const asked = loopbackJson(`${url}/held`, { signal: abort.signal, timeoutMs: 5_000 });
    abort.abort();
    await expect(asked).rejects.toThrow(/abort/i);
  });

  it('runs no timer while its answer is held', async () => {
    const timeouts = new Set<number>();
    let fired = 0;
    const hook = createHook({
      init(id, type) {
        if (type === 'Timeout') timeouts.add(id);
      },
      before(id) {
        if (timeouts.has(id)) fired += 1;
      },
    }).enable();
    try {
      await expect(loopbackJson(`${url}/held`, { timeoutMs: 5_000 })).resolves.toEqual({
        held: true,
      });
    } finally {
      hook.disable();
    }
    // The server's hold is the one timer that fires (fetch's 499 ms tick made it four); one more
    // is allowed for the test runner's own.
    expect(fired).toBeLessThanOrEqual(2);
  });
});
