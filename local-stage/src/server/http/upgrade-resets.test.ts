/**
 * The forwarding process does not crash (decision 0050): a client that resets its connection in the
 * middle of a WebSocket upgrade (while the stage checks its token, or right after a refusal)
 * leaves the stage serving. Before the mend, the reset was an uncaught ECONNRESET on a socket
 * Node had handed to 'upgrade' without an error listener (seen as an unhandled error in a run of
 * the camera link's tests, whose stand-in stage had the same code).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningStage } from '../start';
import { startTestStage } from '../../testing/test-stage';

const secret = new TextEncoder().encode('an-upgrade-reset-test-secret-0123456789');
let running: RunningStage;

beforeAll(async () => {
  running = await startTestStage({ secret });
});

afterAll(async () => {
  await running?.close();
});

/** Sends an upgrade request and resets the connection after `afterMs` (0: at once). */
function upgradeThenReset(path: string, authorization: string, afterMs: number): Promise<void> {
  const { hostname, port } = new URL(running.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n` +
          `Authorization: ${authorization}\r\n\r\n`,
      );
      setTimeout(() => socket.resetAndDestroy(), afterMs);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

describe('upgrades cut off by the client', () => {
  it('leave the stage serving: camera link with a bad token, unknown paths, the events socket', async () => {
    const paths = ['/_control/cameras', '/nowhere', '/stage/events'];
    for (let round = 0; round < 30; round += 1) {
      await Promise.all(
        paths.map((path) => upgradeThenReset(path, 'Bearer not-a-token', round % 3)),
      );
    }
    const stats = await fetch(`${running.url}/_stats`);
    expect(stats.status).toBe(200);
  });
});
