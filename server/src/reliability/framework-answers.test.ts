/**
 * Answers that Fastify or Node would otherwise write themselves, in their own shape and without
 * our headers: a URL that does not decode, a request Node cannot parse, headers too large, and a
 * request that arrives while the server shuts down. Each is `{error}` JSON with the security
 * headers, and none echoes what the client sent.
 */
import { Agent, get as httpGet, type IncomingMessage } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { OperationsStateStore, type OperationsState } from '../operations/operations-state';
import { build } from '../test/helpers';
import { listenOnLoopback, rawExchange, type RawSocketAnswer } from '../test/raw-http';

const REQUIRED = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

function expectOurs(
  name: string,
  answer: { headers: Record<string, unknown>; body: string },
  error: string,
): void {
  expect(answer.headers, name).toMatchObject(REQUIRED);
  expect(String(answer.headers['content-security-policy']), name).toContain(
    "frame-ancestors 'none'",
  );
  expect(answer.headers['content-type'], name).toMatch(/^application\/json/);
  expect(JSON.parse(answer.body), name).toEqual({ error });
  expect(answer.body, name).not.toMatch(/FST_|statusCode|%ff|evil/i);
}

describe('answers the framework would write itself', () => {
  it('a URL that does not decode is 400 Malformed URL, the path not echoed', async () => {
    const { app } = await build();
    for (const url of [
      '/api/%ff',
      '/api/token/%ff?evil=1',
      '/%ff',
      '/assets/%ff.js',
      '/stage/%ff',
    ]) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(400);
      expectOurs(url, response, 'Malformed URL');
      expect(response.headers['x-request-id'], url).toMatch(/^[0-9a-f-]{36}$/);
    }
    const api = await app.inject({ url: '/api/%ff' });
    expect(api.headers['cache-control']).toBe('no-store');
  });

  it.each([
    [
      'a request with both Content-Length and Transfer-Encoding (smuggling)',
      'POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'Malformed request',
    ],
    [
      'a request line that is not HTTP',
      'GET /evil\u0000 HTTP/1.1\r\n\r\n',
      400,
      'Malformed request',
    ],
    [
      'headers over 16 KiB',
      `GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Evil: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'Request headers are too large',
    ],
  ])('%s is answered in our shape', async (name, request, status, error) => {
    const { app } = await build();
    const port = await listenOnLoopback(app);
    const answer = await rawExchange(port, (socket) => socket.write(request));
    expect(answer.status, name).toBe(status);
    expectOurs(name, answer, error);
    expect(answer.closed, name).toBe(true);
  });

  it('a request arriving while the server shuts down is 503 in our shape, and the socket closes', async () => {
    const { app } = await build();
    const port = await listenOnLoopback(app);
    let closing: Promise<void> | undefined;
    const answer: RawSocketAnswer = await rawExchange(port, (socket) => {
      // Half a request: the connection is busy, so the shutdown waits for it.
      socket.write('GET /api/health HTTP/1.1\r\nHost: localhost\r\n');
      closing = app.close();
      const finishOnceClosing = () => {
        if (app.server.listening) setTimeout(finishOnceClosing, 10);
        else socket.write('\r\n');
      };
      finishOnceClosing();
    });
    await closing;
    expect(answer.status).toBe(503);
    expectOurs('closing', answer, 'The server is shutting down; try again in a moment');
    expect(answer.headers.connection).toBe('close');
    expect(answer.closed).toBe(true);
  });

  it('a request in hand when the server shuts down is answered, and its kept-alive connection closes', async () => {
    // A held poll of the operator's page: in hand until the shutdown lets it go.
    const operations = new OperationsStateStore(['N743AS', 'N953AS', 'N954AS']);
    let held = 0;
    const state: OperationsState = {
      snapshot: () => operations.snapshot(),
      changed: (afterVersion, signal) => {
        held += 1;
        return operations.changed(afterVersion, signal);
      },
    };
    const { app, addUser, login } = await build({ deps: { operations: state } });
    await addUser('alice', 'correct horse');
    const token = await login('alice', 'correct horse');
    const port = await listenOnLoopback(app);
    const agent = new Agent({ keepAlive: true });
    try {
      const answered = new Promise<IncomingMessage>((resolve, reject) => {
        const path = `/api/operations?after=${String(operations.snapshot().version)}`;
        httpGet({ port, path, agent, headers: { authorization: `Bearer ${token}` } }, resolve).on(
          'error',
          reject,
        );
      });
      await vi.waitFor(() => expect(held).toBe(1));
      const closed = app.close();
      const response = await answered;
      response.resume();
      expect(response.statusCode).toBe(200);
      expect(response.headers.connection).toBe('close');
      // Without that, the close would wait for the agent, which keeps the connection for its pool.
      await closed;
    } finally {
      agent.destroy();
    }
  });
});
