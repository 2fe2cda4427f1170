/**
 * Decision 0058: a participant token issued before `users passwd`, `disable` or
 * `remove` is refused by the local stage at every door (WHEP, the signalling socket), through a
 * real listening API in front of a real stage that waits for the API's table of token
 * generations, also after the stage restarts; a token issued after the change works.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startLocalStage, type RunningStage } from '../../../local-stage/src/server/start';
import { createAccounts, type Accounts } from '../accounts/accounts';
import { createLocalStageProvider } from '../providers/local-provider';
import { stageAccountHooks } from '../providers/stage-provider';
import { TokenGenerationSync } from '../providers/token-generation-sync';
import { build, CLIENT_ID, stageTokenSecret, testConfig, type TestApp } from '../test/helpers';

const OFFER =
  'v=0\r\no=- 7 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n' +
  'a=mid:0\r\na=recvonly\r\na=rtpmap:96 VP8/90000\r\na=ice-ufrag:abcd\r\n' +
  'a=ice-pwd:abcdefghijklmnopqrstuvwx\r\na=fingerprint:sha-256 ' +
  `${Array.from({ length: 32 }, () => 'AB').join(':')}\r\na=setup:actpass\r\n`;

let stage: RunningStage | undefined;
const sockets: WebSocket[] = [];
const syncs: TokenGenerationSync[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const sync of syncs.splice(0)) await sync.close();
  await stage?.close();
  stage = undefined;
});

async function startStage(port = 0): Promise<RunningStage> {
  stage = await startLocalStage({
    host: '127.0.0.1',
    port,
    secret: stageTokenSecret,
    faultsEnabled: false,
    awaitTokenGenerations: true,
  });
  return stage;
}

interface Product {
  test: TestApp;
  accounts: Accounts;
  /** http://127.0.0.1:port of the listening API. */
  base: string;
}

/**
 * An API in front of `stageUrl`, listening on loopback, its accounts and the stage's table of
 * token generations wired as the server's (server.ts).
 */
async function product(stageUrl: string): Promise<Product> {
  const base = testConfig();
  const test = await build({ config: { localStage: { ...base.localStage, url: stageUrl } } });
  const provider = createLocalStageProvider({
    secret: stageTokenSecret,
    ttlMinutes: 60,
    publicUrl: undefined,
    stageUrl,
  });
  const accounts = createAccounts(
    test.store,
    stageAccountHooks(provider, {
      ended: () => undefined,
      failed: (_userId, error) => {
        throw error;
      },
    }),
  );
  const silent = { info: () => undefined, warn: () => undefined };
  const sync = new TokenGenerationSync({
    stage: { url: stageUrl, secret: stageTokenSecret },
    readTable: () => test.store.listTokenGenerations(),
    log: silent,
    pollMs: 50,
  });
  syncs.push(sync);
  sync.start();
  const address = await test.app.listen({ port: 0, host: '127.0.0.1' });
  return { test, accounts, base: address };
}

async function participantToken({ test }: Product, loginToken: string): Promise<string> {
  const response = await test.app.inject({
    method: 'POST',
    url: '/api/token',
    headers: { authorization: `Bearer ${loginToken}` },
    payload: { stageId: 'N743AS', clientId: CLIENT_ID },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ token: string }>().token;
}

/** A WHEP offer through the API: its status and `{error}`. */
async function whep(
  { base }: Product,
  token: string,
): Promise<{ status: number; error: string | undefined }> {
  const response = await fetch(`${base}/stage/whep/N743AS`, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
    body: OFFER,
  });
  const text = await response.text();
  let error: string | undefined;
  try {
    error = (JSON.parse(text) as { error?: string }).error;
  } catch {
    error = undefined;
  }
  return { status: response.status, error };
}

/** Joins the stage's signalling socket through the API: the stage's first answer. */
async function join({ base }: Product, token: string): Promise<Record<string, unknown>> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}/stage/events`);
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.once('message', (data) => resolve(JSON.parse(data.toString()) as never));
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify({ type: 'join', token })));
  });
}

const REVOKED_AT_WHEP = { status: 401, error: 'The token has been revoked' };
const REVOKED_AT_JOIN = {
  type: 'error',
  category: 'JOIN_ERROR',
  code: 2,
  message: 'Token expired and is no longer valid',
  fatal: true,
};

describe('participant tokens issued before an account change', () => {
  for (const change of ['passwd', 'disable', 'remove'] as const) {
    it(`refuses at WHEP and at the socket a token issued before \`users ${change}\``, async () => {
      const running = await startStage();
      const api = await product(running.url);
      await api.accounts.add('alice', 'correct horse');
      const token = await participantToken(api, await api.test.login('alice', 'correct horse'));
      // Before the change the token passes the token check (nothing is on air: 503, not 401).
      expect((await whep(api, token)).status).toBe(503);

      if (change === 'passwd') await api.accounts.passwd('alice', 'battery staple');
      if (change === 'disable') await api.accounts.disable('alice');
      if (change === 'remove') await api.accounts.remove('alice');

      expect(await whep(api, token)).toEqual(REVOKED_AT_WHEP);
      expect(await join(api, token)).toMatchObject(REVOKED_AT_JOIN);
    });
  }

  it('still refuses the old token after the stage restarts, and takes a token issued after the change', async () => {
    const first = await startStage();
    const port = Number(new URL(first.url).port);
    const api = await product(first.url);
    await api.accounts.add('bob', 'correct horse');
    const old = await participantToken(api, await api.test.login('bob', 'correct horse'));
    await api.accounts.passwd('bob', 'battery staple');
    const fresh = await participantToken(api, await api.test.login('bob', 'battery staple'));

    await first.close();
    await startStage(port);

    // The restarted stage knows the generations again once the API has sent them.
    await expect.poll(() => whep(api, fresh).then((answer) => answer.status)).toBe(503);
    expect(await whep(api, old)).toEqual(REVOKED_AT_WHEP);
    expect(await join(api, old)).toMatchObject(REVOKED_AT_JOIN);
    expect(await join(api, fresh)).toMatchObject({ type: 'joined' });
  });
});
