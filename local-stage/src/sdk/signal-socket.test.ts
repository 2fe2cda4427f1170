/**
 * The signalling socket's own ending, against a WebSocket server (the `ws` package's client
 * stands in for the browser's WebSocket): a socket closed while it connects ends as a normal
 * close once open, never as a connection given up (which browsers report as a page error).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { CLOSE_CODES } from '../signalling';
import { installBrowserGlobals } from '../testing/browser-globals';
import { waitUntil } from '../testing/wait-until';
import { SignalSocket } from './signal-socket';

installBrowserGlobals({ WebSocket });

interface Seen {
  /** Upgrades never answered whose connection the client closed. */
  givenUp: number;
  connections: number;
  messages: number;
  closes: { code: number; reason: string }[];
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

const NEVER = -1;

/** A server that answers each upgrade after `delayMs` (or never), and records what reaches it. */
async function server(delayMs: number): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { givenUp: 0, connections: 0, messages: 0, closes: [] };
  const http = createServer();
  const sockets = new WebSocketServer({ noServer: true });
  http.on('upgrade', (request, socket, head) => {
    if (delayMs === NEVER) {
      // Read, so that the client's end of the connection is seen.
      socket.on('end', () => {
        seen.givenUp += 1;
        socket.destroy();
      });
      socket.resume();
      return;
    }
    setTimeout(() => {
      sockets.handleUpgrade(request, socket, head, (client) => {
        seen.connections += 1;
        client.on('message', () => (seen.messages += 1));
        client.on('close', (code, reason) => seen.closes.push({ code, reason: String(reason) }));
      });
    }, delayMs);
  });
  servers.push(http);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}/`, seen };
}

it('closed while it connects: the server sees it open and close normally, with the reason; nothing sent, nothing said', async () => {
  const { url, seen } = await server(200);
  const socket = new SignalSocket(url);
  const said: string[] = [];
  socket.onOpen = () => {
    said.push('open');
    socket.send({ type: 'leave' });
  };
  socket.onClose = () => said.push('close');
  socket.close('left before it opened');
  await waitUntil(() => seen.closes.length === 1, 'the close at the server', 5_000);
  expect(seen).toEqual({
    givenUp: 0,
    connections: 1,
    messages: 0,
    closes: [{ code: CLOSE_CODES.normal, reason: 'left before it opened' }],
  });
  expect(said).toEqual([]);
});

it('closed once open: closes at once, normally', async () => {
  const { url, seen } = await server(0);
  const socket = new SignalSocket(url);
  await new Promise<void>((resolve) => (socket.onOpen = resolve));
  socket.close('done');
  await waitUntil(() => seen.closes.length === 1, 'the close at the server', 5_000);
  expect(seen.closes).toEqual([{ code: CLOSE_CODES.normal, reason: 'done' }]);
});

it('left while it connects to a server that never answers: given up after its limit', async () => {
  const { url, seen } = await server(NEVER);
  const socket = new SignalSocket(url, 200);
  const said: string[] = [];
  socket.onClose = () => said.push('close');
  socket.close('left before it opened');
  await waitUntil(() => seen.givenUp === 1, 'the connection given up', 5_000);
  expect(seen.connections).toBe(0);
  expect(said).toEqual([]);
});
