/**
 * The stage's port has the API's request timeout (issue 24 §4): a request whose headers or body
 * never finish arriving is answered 408 `{error: 'Request timed out'}` and its socket closed once
 * the limit has passed, instead of holding the socket. Over raw sockets, as the API's own test
 * (server/src/reliability/request-timeout.test.ts) does it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rawExchange } from '@tailcam/protocol/testing/raw-exchange';
import type { RunningStage } from '../start';
import { startTestStage } from '../../testing/test-stage';

const secret = new TextEncoder().encode('a-request-timeout-test-secret-of-enough-length');
const LIMIT_MS = 400;
let running: RunningStage | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function listening(): Promise<number> {
  running = await startTestStage({ secret, requestTimeoutMs: LIMIT_MS });
  return Number(new URL(running.url).port);
}

const offerHead = (extra: string) =>
  'POST /stage/whip/N743AS HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/sdp\r\n' +
  `Authorization: Bearer x\r\n${extra}\r\n`;

describe('a request to the stage that never finishes arriving', () => {
  it.each([
    ['a body shorter than its Content-Length', offerHead('Content-Length: 100\r\n') + 'v=0\r\n'],
    [
      'a chunked body with no last chunk',
      offerHead('Transfer-Encoding: chunked\r\n') + '5\r\nv=0\r\n\r\n',
    ],
    ['headers that never end', 'GET /stage/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1\r\n'],
  ])('%s is answered 408 and its socket closed within the limit', async (_name, request) => {
    const port = await listening();
    const answer = await rawExchange(port, (socket) => socket.write(request), 5_000);
    expect(answer.closed).toBe(true);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(LIMIT_MS - 50);
    // Node checks every LIMIT_MS at most (request-timeout.ts): twice the limit, plus slack.
    expect(answer.elapsedMs).toBeLessThan(2 * LIMIT_MS + 1_000);
    expect(answer.status).toBe(408);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body)).toEqual({ error: 'Request timed out' });
  });

  it('a slow request that does arrive whole within the limit is served', async () => {
    const port = await listening();
    const answer = await rawExchange(port, (socket) => {
      socket.write('GET /stage/health HTTP/1.1\r\nHost: localhost\r\n');
      setTimeout(() => socket.write('Connection: close\r\n\r\n'), LIMIT_MS / 4);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'ok', ready: true });
  });
});
