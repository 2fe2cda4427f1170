/**
 * The `/stage/` door: what a browser (or anyone) can do to the local stage through the API's
 * WebSocket edge, tried against a real local stage behind a real listening API. Every finding of
 * a security probe of the door (docs/reliability.md) has its case here: sockets held without a token, cross-origin
 * upgrades, one account taking every seat, a browser that stops answering, huge frames, odd
 * paths, and the stage's own close codes reaching the browser.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { startLocalStage, type RunningStage } from '@tailcam/local-stage/start';
import { waitUntil } from '@tailcam/local-stage/testing/wait-until';
import type { AppConfig } from '../app';
import { build, stageTokenSecret, testConfig } from '../test/helpers';

let stage: RunningStage;
const sockets: WebSocket[] = [];
let tokenCount = 0;

beforeAll(async () => {
  stage = await startLocalStage({
    host: '127.0.0.1',
    port: 0,
    secret: stageTokenSecret,
    faultsEnabled: false,
  });
});

afterAll(async () => {
  await stage.close();
});

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await waitUntil(() => stage.stage.stats().sockets === 0, 'the stage to hold no socket');
});

/** A participant token as the API's local provider signs it. */
function participantToken(userId = 'viewer-user'): Promise<string> {
  tokenCount += 1;
  return issueParticipantToken({
    secret: stageTokenSecret,
    participantId: `participant-${tokenCount}`,
    stageId: 'N743AS',
    userId,
    attributes: {},
    capabilities: { publish: false, subscribe: true },
    stageBaseUrl: `${stage.url}/stage`,
    ttlSeconds: 600,
  });
}

/** An API in front of the running stage, listening on loopback; resolves with its ws:// base. */
async function api(config: Partial<AppConfig> = {}): Promise<string> {
  const base = testConfig();
  const { app } = await build({
    config: { localStage: { ...base.localStage, url: stage.url }, ...config },
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return address.replace('http', 'ws');
}

interface Client {
  socket: WebSocket;
  messages: string[];
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a socket: the open client, or the HTTP status it was refused with before the upgrade. */
function connect(
  url: string,
  options: { headers?: Record<string, string>; autoPong?: boolean } = {},
): Promise<Client | { refused: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: options.headers, autoPong: options.autoPong });
    sockets.push(socket);
    const messages: string[] = [];
    const closed = new Promise<{ code: number; reason: string }>((resolveClose) => {
      socket.on('close', (code, reason) => resolveClose({ code, reason: reason.toString() }));
    });
    socket.on('message', (data) => messages.push(data.toString()));
    socket.on('unexpected-response', (_request, response) => {
      response.resume();
      resolve({ refused: response.statusCode ?? 0 });
      socket.terminate();
    });
    socket.on('open', () => resolve({ socket, messages, closed }));
    socket.on('error', (error) => reject(error));
  });
}

async function open(url: string, options: Parameters<typeof connect>[1] = {}): Promise<Client> {
  const result = await connect(url, options);
  if ('refused' in result) throw new Error(`upgrade refused with ${result.refused}`);
  return result;
}

async function nextMessage(client: Client, index: number): Promise<Record<string, unknown>> {
  await waitUntil(() => client.messages.length > index, `message ${index + 1}`);
  return JSON.parse(client.messages[index]!) as Record<string, unknown>;
}

async function join(client: Client, token: string): Promise<Record<string, unknown>> {
  const index = client.messages.length;
  client.socket.send(JSON.stringify({ type: 'join', token }));
  return nextMessage(client, index);
}

/** The status of an upgrade request sent with its path exactly as given (no URL parsing). */
function rawUpgradeStatus(base: string, path: string): Promise<number> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      agent: false,
      host: hostname,
      port,
      path,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'),
      },
    });
    req.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 101);
    });
    req.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the /stage/ door: seats', () => {
  it('lets a viewer with a valid token join while tokenless sockets from many addresses take every seat they can', async () => {
    // No join timeout to help: the seats stay taken until the viewer comes.
    const base = await api({
      trustProxy: true,
      stageProxy: { ...testConfig().stageProxy, joinSeconds: 60 },
    });
    // 17 addresses, 16 sockets each: more than the stage's own 256 in all.
    const attempts: Promise<Client | { refused: number } | undefined>[] = [];
    for (let address = 0; address < 17; address += 1) {
      for (let socket = 0; socket < 16; socket += 1) {
        attempts.push(
          connect(`${base}/stage/events`, {
            headers: { 'x-forwarded-for': `198.51.100.${address + 1}` },
          }).catch(() => undefined),
        );
      }
    }
    const tokenless = (await Promise.all(attempts)).filter(
      (client): client is Client => client !== undefined && 'socket' in client,
    );
    const stillOpen = () =>
      tokenless.filter((client) => client.socket.readyState === WebSocket.OPEN).length;
    // Sockets that gave up their seats are closing meanwhile.
    await waitUntil(() => stillOpen() === 200, '200 tokenless sockets holding every seat');
    await waitUntil(() => stage.stage.stats().sockets === 200, 'the stage to hold 200 sockets');

    const viewer = await open(`${base}/stage/events`, {
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(await join(viewer, await participantToken())).toMatchObject({ type: 'joined' });
    await waitUntil(() => stillOpen() === 199, 'one tokenless socket to give its seat up');
  });

  it('caps the sockets one address holds at the default 160, an office watching every stream; X-Forwarded-For does not change the address unless TRUST_PROXY says so', async () => {
    const perAddress = testConfig().stageProxy.socketsPerAddress;
    expect(perAddress).toBe(160);
    const base = await api({ stageProxy: { ...testConfig().stageProxy, joinSeconds: 60 } });
    const office = await Promise.all(
      Array.from({ length: perAddress }, (_, index) =>
        connect(`${base}/stage/events`, {
          headers: { 'x-forwarded-for': `198.51.100.${(index % 250) + 1}` },
        }),
      ),
    );
    expect(office.filter((client) => 'socket' in client)).toHaveLength(perAddress);
    const next = await connect(`${base}/stage/events`, {
      headers: { 'x-forwarded-for': '198.51.100.99' },
    });
    expect(next).toEqual({ refused: 429 });
  });

  it('closes a socket that has not joined within STAGE_JOIN_SECONDS', async () => {
    const base = await api({ stageProxy: { ...testConfig().stageProxy, joinSeconds: 1 } });
    const idle = await open(`${base}/stage/events`);
    const started = Date.now();
    const closed = await idle.closed;
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(closed.code).toBe(1008);
    // A viewer that joins at once stays.
    const viewer = await open(`${base}/stage/events`);
    expect(await join(viewer, await participantToken())).toMatchObject({ type: 'joined' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(viewer.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('refuses a ninth stage session for one account with a join error, and still admits another account', async () => {
    const base = await api();
    for (let index = 0; index < 8; index += 1) {
      const client = await open(`${base}/stage/events`);
      expect(await join(client, await participantToken('greedy'))).toMatchObject({
        type: 'joined',
      });
    }
    const ninth = await open(`${base}/stage/events`);
    expect(await join(ninth, await participantToken('greedy'))).toMatchObject({
      type: 'error',
      category: 'JOIN_ERROR',
      code: 8,
      message: 'Too many streams are open with this account; close one and try again',
      fatal: true,
    });
    expect(await ninth.closed).toEqual({ code: 4001, reason: 'join refused' });
    const other = await open(`${base}/stage/events`);
    expect(await join(other, await participantToken('someone-else'))).toMatchObject({
      type: 'joined',
    });
  });
});

describe('the /stage/ door: who may upgrade', () => {
  it('refuses a cross-origin upgrade with 403 before the upgrade; lets in the own origin, CORS_ORIGINS, PUBLIC_URL and clients that send no Origin', async () => {
    const base = await api({
      corsOrigins: ['https://app.example'],
      publicUrl: 'https://tailcam.example',
    });
    const own = base.replace('ws', 'http');
    expect(
      await connect(`${base}/stage/events`, { headers: { origin: 'https://evil.example' } }),
    ).toEqual({ refused: 403 });
    expect(await connect(`${base}/stage/events`, { headers: { origin: 'null' } })).toEqual({
      refused: 403,
    });
    for (const origin of [own, 'https://app.example', 'https://tailcam.example']) {
      await open(`${base}/stage/events`, { headers: { origin } });
    }
    await open(`${base}/stage/events`);
  });

  it('refuses upgrades to any path but /stage/events before the upgrade, leaving nothing open', async () => {
    const base = await api();
    for (const path of [
      '/stage/events#x',
      '/stage/events/',
      '/stage//events',
      '/stage/%65vents',
      '/stage/health',
      '/stage/../_stats',
      '/stage/%2e%2e/_faults/drop',
    ]) {
      expect(await rawUpgradeStatus(base, path), path).toBeGreaterThanOrEqual(400);
    }
    expect(stage.stage.stats().sockets).toBe(0);
  });
});

describe('the /stage/ door: what passes through', () => {
  it("passes the stage's own close code and reason to the browser: a refused join, a leave", async () => {
    const base = await api();
    const refused = await open(`${base}/stage/events`);
    expect(await join(refused, 'not-a-token')).toMatchObject({ type: 'error', code: 1 });
    expect(await refused.closed).toEqual({ code: 4001, reason: 'join refused' });

    const leaving = await open(`${base}/stage/events`);
    expect(await join(leaving, await participantToken())).toMatchObject({ type: 'joined' });
    leaving.socket.send(JSON.stringify({ type: 'leave' }));
    expect(await leaving.closed).toEqual({ code: 1000, reason: 'left' });
  });

  it('refuses a frame over 128 KiB at the edge (1009), as the stage does', async () => {
    const base = await api();
    const client = await open(`${base}/stage/events`);
    client.socket.send('x'.repeat(1024 * 1024));
    expect((await client.closed).code).toBe(1009);
  });

  it('relays the stage refusing malformed JSON, unknown message types and floods', async () => {
    const base = await api();
    const malformed = await open(`${base}/stage/events`);
    malformed.socket.send('{"type":');
    expect(await malformed.closed).toEqual({ code: 4002, reason: 'protocol error' });

    const unknown = await open(`${base}/stage/events`);
    unknown.socket.send(JSON.stringify({ type: 'publish', token: 'x' }));
    expect(await unknown.closed).toEqual({ code: 4002, reason: 'protocol error' });

    const flooding = await open(`${base}/stage/events`);
    expect(await join(flooding, await participantToken())).toMatchObject({ type: 'joined' });
    const subscribe = JSON.stringify({
      type: 'subscribe',
      requestId: 'r',
      participantId: 'nobody',
      media: { audio: false, video: true },
    });
    for (let index = 0; index < 500; index += 1) flooding.socket.send(subscribe);
    expect(await flooding.closed).toEqual({ code: 4002, reason: 'protocol error' });
  });

  it('ends a joined viewer whose browser stops answering pings, and its stage session with it', async () => {
    const base = await api({ stageProxy: { ...testConfig().stageProxy, pingSeconds: 1 } });
    const silent = await open(`${base}/stage/events`, { autoPong: false });
    expect(await join(silent, await participantToken())).toMatchObject({ type: 'joined' });
    await waitUntil(() => stage.stage.stats().participants.length === 1, 'the join');
    await waitUntil(
      () => stage.stage.stats().participants.length === 0,
      'the stage session to end',
      5_000,
    );
    expect((await silent.closed).code).toBe(1006);
  });
});
