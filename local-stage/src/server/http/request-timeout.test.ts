/**
 * The stage's port has the API's request timeout: a request whose headers or body
 * never finish arriving is answered 408 `{error: 'Request timed out'}` and its socket closed once
 * the limit has passed, instead of holding the socket. Over raw sockets, as the API's own test
 * (server/src/reliability/request-timeout.test.ts) does it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  rawExchange,
  TIMED_OUT,
  timedOutAnswer,
  unfinishedRequests,
} from '@tailcam/protocol/testing/raw-exchange';
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
  it.each(unfinishedRequests(offerHead, 'v=0\r\n', '/stage/health'))(
    '%s is answered 408 and its socket closed within the limit',
    async (_name, request) => {
      const port = await listening();
      const answer = await rawExchange(port, (socket) => socket.write(request), 5_000);
      expect(timedOutAnswer(answer, LIMIT_MS)).toEqual(TIMED_OUT);
    },
  );

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
