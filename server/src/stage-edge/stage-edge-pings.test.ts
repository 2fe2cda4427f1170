/**
 * The API's pings of the browsers' stage sockets run only while a socket is open (decision 0078,
 * issue 31 §2): no timer with no socket, one interval however many sockets, pings every
 * STAGE_PING_SECONDS while one is open, and the interval gone with the last socket and back with
 * the next. The stage edge on a bare Fastify on loopback with real sockets, in front of a
 * stand-in stage that keeps each relayed socket open (the door's rules are
 * reliability/stage-proxy-door.test.ts's, against the real stage); the intervals on vitest's clock.
 */
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { registerStageEdge } from './stage-edge';

const PING_SECONDS = 5;
const PING_MS = PING_SECONDS * 1000;

let app: FastifyInstance;
let stage: WebSocketServer;
let url: string;
const clients: WebSocket[] = [];

beforeEach(async () => {
  // Only the intervals are faked (Node's HTTP server keeps its own): the sockets run for real.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  stage = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => stage.once('listening', resolve));
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
  await app.close();
  await new Promise((resolve) => stage.close(resolve));
});

/**
 * Waits (real time) until `predicate` holds; not `vi.waitFor`, which moves the faked clock on as
 * it polls.
 */
async function waitUntil(predicate: () => boolean, what: string, timeoutMs = 2_000) {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A browser's socket, relayed to the stage, counting the pings it gets. */
async function open() {
  const relayed = stage.clients.size;
  const socket = new WebSocket(url, { autoPong: true });
  clients.push(socket);
  const pings = { count: 0 };
  socket.on('ping', () => (pings.count += 1));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  await waitUntil(() => stage.clients.size > relayed, 'the socket relayed to the stage');
  return { socket, pings };
}

/** Closes a browser's socket and waits until its relay has ended (the stage's end closed). */
async function close(client: { socket: WebSocket }) {
  const relayed = stage.clients.size;
  client.socket.close();
  await new Promise((resolve) => client.socket.once('close', resolve));
  await waitUntil(() => stage.clients.size < relayed, 'the relay to end');
}

describe("the API's pings of the stage sockets", () => {
  it('run while a socket is open, stop with the last socket, and start again with the next', async () => {
    // Idle: nothing to wake for.
    expect(vi.getTimerCount()).toBe(0);

    const first = await open();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PING_MS);
    await waitUntil(() => first.pings.count === 1, 'the first ping');

    // A second socket shares the one interval; both are pinged.
    const second = await open();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PING_MS);
    await waitUntil(() => first.pings.count === 2 && second.pings.count === 1, 'both pinged');

    // One of two closes: the other is still pinged.
    await close(first);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PING_MS);
    await waitUntil(() => second.pings.count === 2, 'the open one pinged');

    // The last closes: no timer left.
    await close(second);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5 * PING_MS);

    // A new socket after the idle spell is pinged again, a whole interval after it opened.
    const third = await open();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PING_MS - 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(third.pings.count).toBe(0);
    vi.advanceTimersByTime(1);
    await waitUntil(() => third.pings.count === 1, 'the new socket pinged');
  });

  it('cut a browser that missed a pong, and stop once it is gone', async () => {
    const silent = new WebSocket(url, { autoPong: false });
    clients.push(silent);
    const closed = new Promise((resolve) => silent.once('close', resolve));
    await new Promise((resolve) => silent.once('open', resolve));
    await waitUntil(() => stage.clients.size === 1, 'the socket relayed to the stage');
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PING_MS); // pinged
    await new Promise((resolve) => setTimeout(resolve, 50));
    vi.advanceTimersByTime(PING_MS); // no pong: cut
    await closed;
    await waitUntil(() => stage.clients.size === 0, 'the relay to end');
    expect(vi.getTimerCount()).toBe(0);
  });
});
