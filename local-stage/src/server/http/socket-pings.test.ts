/**
 * The stage's socket pings run only while a socket is open (decision 0078): no
 * timer with no socket, one interval however many sockets, pings every 10 s while one is open,
 * and the interval gone with the last socket and back with the next; a socket that misses a pong
 * is cut. The stage's HTTP server on loopback with real sockets; the sessions are a stand-in that
 * keeps each socket open (what the stage does with a socket is not what this is about); the
 * intervals are on vitest's clock. The API's own: stage-edge-pings.test.ts in server/.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, beforeEach, describe, it, vi } from 'vitest';
import WebSocket from 'ws';
import { silentLogger } from '../../stage-log';
import type { LocalStage } from '../stage/local-stage';
import { expectPingsOnlyWhileOpen, expectSilentSocketCut } from '../../testing/pings-while-open';
import { waitUntilRealTime } from '../../testing/wait-until';
import { createStageServer } from './http-server';

const PING_MS = 10_000;

let server: Server;
let url: string;
/** The stage's end of each socket, as the stage was handed it. */
const accepted: WebSocket[] = [];
const clients: WebSocket[] = [];

beforeEach(async () => {
  // Only the intervals are faked (Node's HTTP server keeps its own): the sockets run for real.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const stage = {
    log: silentLogger(),
    accept: (socket: WebSocket) => accepted.push(socket),
  } as unknown as LocalStage;
  server = createStageServer({ stage, secret: new Uint8Array(32), faultsEnabled: false });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `ws://127.0.0.1:${String((server.address() as AddressInfo).port)}/stage/events`;
});

afterEach(async () => {
  vi.useRealTimers();
  for (const client of clients.splice(0)) client.terminate();
  accepted.length = 0;
  await new Promise((resolve) => server.close(resolve));
});

/** A client socket, open and held by the stage, counting the pings it gets. */
async function open(autoPong = true) {
  const socket = new WebSocket(url, { autoPong });
  clients.push(socket);
  const pings = { count: 0 };
  socket.on('ping', () => (pings.count += 1));
  const before = accepted.length;
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  await waitUntilRealTime(() => accepted.length > before, 'the stage to take the socket');
  const stageEnd = accepted[accepted.length - 1] as WebSocket;
  // Once the stage's end has closed, its close listeners (the pings' among them) have run.
  const closed = new Promise((resolve) => stageEnd.once('close', () => setImmediate(resolve)));
  return { socket, pings, closed };
}

describe("the stage's socket pings", () => {
  it('run while a socket is open, stop with the last socket, and start again with the next', () =>
    expectPingsOnlyWhileOpen({
      pingMs: PING_MS,
      open: () => open(),
      close: async (client) => {
        client.socket.close();
        await client.closed;
      },
    }));

  it('cut a socket that missed a pong, and stop once it is gone', () =>
    expectSilentSocketCut({ pingMs: PING_MS, openSilent: () => open(false) }));
});
