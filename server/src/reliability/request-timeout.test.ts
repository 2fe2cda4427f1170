/**
 * A request that never finishes arriving (a body shorter than its Content-Length, a chunked body
 * with no last chunk) is answered 408 and its socket closed once REQUEST_TIMEOUT_MS has passed,
 * instead of holding a socket and a pending request for minutes. Over a real socket: `inject`
 * has no clock and no socket.
 */
import { describe, expect, it } from 'vitest';
import { build } from '../test/helpers';
import {
  TIMED_OUT,
  timedOutAnswer,
  unfinishedRequests,
} from '@tailcam/protocol/testing/raw-exchange';
import { listenOnLoopback, rawExchange } from '../test/raw-http';

const LIMIT_MS = 400;

async function listening(): Promise<number> {
  const { app } = await build({ config: { requestTimeoutMs: LIMIT_MS } });
  return listenOnLoopback(app);
}

const loginHead = (extra: string) =>
  `POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${extra}\r\n`;

describe('a request that never finishes arriving', () => {
  it.each(unfinishedRequests(loginHead, '{"user', '/api/health'))(
    '%s is answered 408 and its socket closed within the limit',
    async (_name, request) => {
      const port = await listening();
      const answer = await rawExchange(port, (socket) => socket.write(request), 5_000);
      expect(timedOutAnswer(answer, LIMIT_MS)).toEqual(TIMED_OUT);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
    },
  );

  it('a slow request that does arrive whole within the limit is served', async () => {
    const port = await listening();
    const body = JSON.stringify({ username: 'nobody', password: 'secret' });
    const answer = await rawExchange(port, (socket) => {
      socket.write(loginHead(`Content-Length: ${body.length}\r\nConnection: close\r\n`));
      socket.write(body.slice(0, 10));
      setTimeout(() => socket.write(body.slice(10)), LIMIT_MS / 4);
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ error: 'Invalid credentials' });
  });

  it('an idle keep-alive connection between two requests is not a request timing out', async () => {
    const port = await listening();
    const answer = await rawExchange(
      port,
      (socket) => {
        socket.write('GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
        setTimeout(
          () =>
            socket.write(
              'GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
            ),
          2 * LIMIT_MS + 200,
        );
      },
      5_000,
    );
    expect(answer.body.match(/HTTP\/1\.1 200/g) ?? []).toHaveLength(1);
    expect(answer.status).toBe(200);
    expect(answer.body).not.toContain('408');
  });
});
