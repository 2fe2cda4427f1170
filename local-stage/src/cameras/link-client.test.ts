/**
 * The camera process's end of the camera link against a small stand-in stage: a WebSocket server
 * on the link's path that admits only a Bearer link token signed with its secret.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { CAMERA_LINK_PATH, verifyCameraLinkToken, type CameraLinkMessage } from '../camera-link';
import { waitUntil } from '../testing/wait-until';
import { CameraLinkClient } from './link-client';

const secret = new TextEncoder().encode('a-camera-link-test-secret-of-enough-length');

interface StandInStage {
  url: string;
  /** The links admitted so far, newest last. */
  links: WebSocket[];
  /** Upgrades refused for their token. */
  refused: number;
  close(): Promise<void>;
}

async function standInStage(stageSecret: Uint8Array, port = 0): Promise<StandInStage> {
  const server: Server = createServer((_request, response) => response.writeHead(404).end());
  const sockets = new WebSocketServer({ noServer: true });
  const stage: StandInStage = { url: '', links: [], refused: 0, close: async () => undefined };
  server.on('upgrade', (request, socket, head) => {
    socket.on('error', () => socket.destroy()); // as the stage does (http-server.ts)
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    void verifyCameraLinkToken(token, stageSecret).then((valid) => {
      if (!valid || request.url !== CAMERA_LINK_PATH) {
        stage.refused += 1;
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      sockets.handleUpgrade(request, socket, head, (link) => stage.links.push(link));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  stage.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stage.close = async () => {
    for (const link of sockets.clients) link.terminate();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return stage;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function linkTo(stage: { url: string }, linkSecret = secret) {
  const events: string[] = [];
  const messages: CameraLinkMessage[] = [];
  const client = new CameraLinkClient({
    stageUrl: stage.url,
    secret: linkSecret,
    onOpen: () => events.push('open'),
    onMessage: (message) => messages.push(message),
    onClose: () => events.push('close'),
  });
  cleanup.push(() => client.close());
  client.start();
  return { client, events, messages };
}

describe('the camera link, camera process side', () => {
  it("opens with the secret's link token and passes on the stage's demand and key-frame messages", async () => {
    const stage = await standInStage(secret);
    cleanup.push(() => stage.close());
    const { client, events, messages } = linkTo(stage);
    await waitUntil(() => stage.links.length === 1 && client.connected, 'the link open');
    expect(events).toEqual(['open']);

    const link = stage.links[0];
    link?.send(JSON.stringify({ type: 'demand', stageId: 'N743AS', video: true, audio: false }));
    link?.send('{"type":"demand","stageId":"N743AS"}'); // not a message: ignored
    link?.send(JSON.stringify({ type: 'key-frame', stageId: 'N743AS' }));
    link?.send(JSON.stringify({ type: 'on-air', stageId: 'N953AS', onAir: false }));
    await waitUntil(() => messages.length === 3, 'three messages');
    expect(messages).toEqual([
      { type: 'demand', stageId: 'N743AS', video: true, audio: false },
      { type: 'key-frame', stageId: 'N743AS' },
      { type: 'on-air', stageId: 'N953AS', onAir: false },
    ]);
  });

  it('is refused by a stage with another secret, and keeps trying without ever opening', async () => {
    const stage = await standInStage(
      new TextEncoder().encode('another-secret-another-secret-another'),
    );
    cleanup.push(() => stage.close());
    const { client, events } = linkTo(stage);
    await waitUntil(() => stage.refused >= 3, 'three refused attempts');
    expect(stage.links).toHaveLength(0);
    expect(client.connected).toBe(false);
    expect(events).toEqual([]);
  });

  it('opens again after the stage closed it, and after the stage restarted', async () => {
    const stage = await standInStage(secret);
    const { client, events } = linkTo(stage);
    await waitUntil(() => client.connected, 'the link open');

    stage.links[0]?.close(1000, 'replaced');
    await waitUntil(() => stage.links.length === 2 && client.connected, 'the link open again');
    expect(events).toEqual(['open', 'close', 'open']);

    // The stage restarts on the same port: not there for a moment (the client tries a port that
    // ends every connection at once), then back.
    const { port } = new URL(stage.url);
    await stage.close();
    await waitUntil(() => !client.connected, 'the link closed');
    let triedWhileAway = 0;
    const away = createTcpServer((socket) => {
      triedWhileAway += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => away.listen(Number(port), '127.0.0.1', resolve));
    await waitUntil(() => triedWhileAway > 0, 'an attempt while the stage is away');
    await new Promise<void>((resolve) => away.close(() => resolve()));
    const restarted = await standInStage(secret, Number(port));
    cleanup.push(() => restarted.close());
    await waitUntil(
      () => restarted.links.length === 1 && client.connected,
      'a link to the new stage',
    );
    expect(events).toEqual(['open', 'close', 'open', 'close', 'open']);
  });

  it('stays closed once closed', async () => {
    const stage = await standInStage(secret);
    cleanup.push(() => stage.close());
    const { client, events } = linkTo(stage);
    await waitUntil(() => client.connected, 'the link open');
    await client.close();
    await waitUntil(
      () => stage.links.every((link) => link.readyState === link.CLOSED),
      "the stage's end of the link closed",
    );
    expect(stage.links.filter((link) => link.readyState === link.OPEN)).toHaveLength(0);
    expect(stage.links).toHaveLength(1);
    expect(events).toEqual(['open', 'close']);
  });
});
