/**
 * The API's pings of the browsers' stage sockets run only while a socket is open (decision 0078:
 * idle wakes nothing): no timer with no socket, one interval however many sockets, pings every
 * STAGE_PING_SECONDS while one is open, and the interval gone with the last socket and back with
 * the next; a browser that misses a pong is cut. The stage edge on a bare Fastify on loopback with
 * real sockets, in front of a stand-in stage that keeps each relayed socket open (the door's rules
 * are reliability/stage-proxy-door.test.ts's, against the real stage); the intervals on vitest's
 * clock. The stage's own: local-stage/src/server/http/socket-pings.test.ts.
 */
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import {
  expectPingsOnlyWhileOpen,
  expectSilentSocketCut,
} from '@tailcam/local-stage/testing/pings-while-open';
import { waitUntilRealTime } from '@tailcam/local-stage/testing/wait-until';
import { registerStageEdge } from './stage-edge';

const PING_SECONDS = 5;

let app: FastifyInstance;
let stage: WebSocketServer;
let url: string;
/** The stage's end of each relayed socket. */
const accepted: WebSocket[] = [];
const clients: WebSocket[] = [];

beforeEach(async () => {
  // Only the intervals are faked (Node's HTTP server keeps its own): the sockets run for real.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  stage = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => stage.once('listening', resolve));
  stage.on('connection', (socket) => accepted.push(socket));
  app = Fastify();
  registerStageEdge(app, {
    upstream: `http://127.0.0.1:${String((stage.address() as AddressInfo).port)}`,
    limits: { socketsPerAddress: 8, socketsTotal: 16, joinSeconds: 60, pingSeconds: PING_SECONDS },
    publicUrl: undefined,
    corsOrigins: [],
  });
  url = `${(await app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws')}/stage/events`;
});

afterEach(async () => {
  vi.useRealTimers();
  for (const client of clients.splice(0)) client.terminate();
  accepted.length = 0;
  await app.close();
  await new Promise((resolve) => stage.close(resolve));
});

/** A browser's socket, relayed to the stage, counting the pings it gets. */
async function open(autoPong = true) {
  const relayed = accepted.length;
  const socket = new WebSocket(url, { autoPong });
  clients.push(socket);
  const pings = { count: 0 };
  socket.on('ping', () => (pings.count += 1));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  await waitUntilRealTime(() => accepted.length > relayed, 'the socket relayed to the stage');
  // The relay ends (its pings let go) before it closes its socket to the stage.
  const stageEnd = accepted[accepted.length - 1] as WebSocket;
  const closed = new Promise((resolve) => stageEnd.once('close', resolve));
  return { socket, pings, closed };
}

describe("the API's pings of the stage sockets", () => {
  it('run while a socket is open, stop with the last socket, and start again with the next', () =>
    expectPingsOnlyWhileOpen({
      pingMs: PING_SECONDS * 1000,
      open: () => open(),
      close: async (client) => {
        client.socket.close();
        await client.closed;
      },
    }));

  it('cut a browser that missed a pong, and stop once it is gone', () =>
    expectSilentSocketCut({ pingMs: PING_SECONDS * 1000, openSilent: () => open(false) }));
});
