/**
 * The stage's socket pings run only while a socket is open (decision 0078, issue 31 §2): no
 * timer with no socket, one interval however many sockets, pings every 10 s while one is open,
 * and the interval gone with the last socket and back with the next. The stage's HTTP server on
 * loopback with real sockets; the sessions are a stand-in that keeps each socket open (what the
 * stage does with a socket is not what this is about); the intervals are on vitest's clock.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { silentLogger } from '../../stage-log';
import type { LocalStage } from '../stage/local-stage';
import { createStageServer } from './http-server';

const PING_MS = 10_000;

let server: Server;
let url: string;
/** The stage's end of each socket, as the stage was handed it. */
const accepted: WebSocket[] = [];
const clients: WebSocket[] = [];

beforeEach(async () => {
  const stage = {
    log: silentLogger(),
    accept: (socket: WebSocket) => accepted.push(socket),
  } as unknown as LocalStage;
  // Only the intervals are faked (Node's HTTP server keeps its own): the sockets run for real.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
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

/** A client socket, open, counting the pings it gets. */
async function open() {
  const socket = new WebSocket(url);
  clients.push(socket);
  const pings = { count: 0 };
  socket.on('ping', () => (pings.count += 1));
  const before = accepted.length;
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  await waitUntil(() => accepted.length > before, 'the stage to take the socket', 2_000);
  return { socket, pings, stageEnd: accepted[accepted.length - 1] as WebSocket };
}

/** Closes a client and waits until the stage's end of it has closed. */
async function close(client: { socket: WebSocket; stageEnd: WebSocket }) {
  const closed = new Promise((resolve) => client.stageEnd.once('close', resolve));
  client.socket.close();
  await closed;
  // The stage's own close listener (after this one) has run by the next turn.
  await new Promise((resolve) => setImmediate(resolve));
}

describe("the stage's socket pings", () => {
  it('run while a socket is open, stop with the last socket, and start again with the next', async () => {
    // Idle: nothing to wake for.
    expect(vi.getTimerCount()).toBe(0);

    const first = await open();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PING_MS);
    await waitUntil(() => first.pings.count === 1, 'the first ping', 2_000);

    // A second socket shares the one interval; both are pinged.
    const second = await open();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PING_MS);
    await waitUntil(
      () => first.pings.count === 2 && second.pings.count === 1,
      'both pinged',
      2_000,
    );

    // One of two closes: the other is still pinged.
    await close(first);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PING_MS);
    await waitUntil(() => second.pings.count === 2, 'the open one pinged', 2_000);

    // The last closes: no timer left.
    await close(second);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5 * PING_MS);

    // A new socket after the idle spell is pinged again.
    const third = await open();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PING_MS - 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(third.pings.count).toBe(0);
    vi.advanceTimersByTime(1);
    await waitUntil(() => third.pings.count === 1, 'the new socket pinged', 2_000);
  });

  it('cut a socket that missed a pong, and stop once it is gone', async () => {
    const silent = new WebSocket(url, { autoPong: false });
    clients.push(silent);
    const closed = new Promise((resolve) => silent.once('close', resolve));
    await new Promise((resolve) => silent.once('open', resolve));
    await waitUntil(() => accepted.length === 1, 'the stage to take the socket', 2_000);
    const stageEnd = accepted[0] as WebSocket;
    expect(vi.getTimerCount()).toBe(1);
    const stageClosed = new Promise((resolve) => stageEnd.once('close', resolve));
    vi.advanceTimersByTime(PING_MS); // pinged
    await new Promise((resolve) => setTimeout(resolve, 50));
    vi.advanceTimersByTime(PING_MS); // no pong: cut
    await closed;
    await stageClosed;
    await new Promise((resolve) => setImmediate(resolve));
    expect(vi.getTimerCount()).toBe(0);
  });
});
