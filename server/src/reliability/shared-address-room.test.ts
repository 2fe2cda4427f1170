/**
 * An office: a room of viewers behind one NAT address, all on the default limits (decision
 * 0065). Fifty viewers sign in within a minute, each watches the three streams (Watch all) and
 * reconnects once, through the API's door to a real local stage; the per-name sign-in bounds
 * still hold at that same address, and guessing many names from it still stops.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startLocalStage, type RunningStage } from '@tailcam/local-stage/start';
import { waitUntil } from '@tailcam/local-stage/testing/wait-until';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import type { PasswordVerifier } from '../auth/passwords';
import { TokenGenerationSync } from '../providers/token-generation-sync';
import { CLIENT_ID, build, stageTokenSecret, testConfig } from '../test/helpers';

const ROOM = 50;
const OFFICE = '203.0.113.50';
const PASSWORD = 'correct horse battery staple';
/** argon2 is not what is under test: the room is about counting, so checks are instant. */
const fastPasswords: PasswordVerifier = {
  verify: async (passwordHash, password) => passwordHash !== undefined && password === PASSWORD,
};

let stage: RunningStage;
const sockets: WebSocket[] = [];
const syncs: TokenGenerationSync[] = [];

beforeAll(async () => {
  stage = await startLocalStage({
    host: '127.0.0.1',
    port: 0,
    secret: stageTokenSecret,
    faultsEnabled: false,
    // The stage's own guard (64 viewer seats by default) is raised as docs/deployment.md says
    // for a room watching every stream; the limits under test are the API's, per address.
    limits: { maxSessions: ROOM * STREAM_IDS.length },
  });
});

afterAll(async () => {
  await stage.close();
});

afterEach(async () => {
  for (const sync of syncs.splice(0)) await sync.close();
  for (const socket of sockets.splice(0)) socket.terminate();
  await waitUntil(() => stage.stage.stats().sockets === 0, 'the stage to hold no socket');
});

/** Opens a signalling socket from the office and joins; resolves with the stage's first answer. */
function joinFromOffice(base: string, participantToken: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base}/stage/events`, {
      headers: { 'x-forwarded-for': OFFICE },
    });
    sockets.push(socket);
    socket.on('unexpected-response', (_request, response) => {
      response.resume();
      reject(new Error(`upgrade refused with ${response.statusCode}`));
    });
    socket.on('open', () => socket.send(JSON.stringify({ type: 'join', token: participantToken })));
    socket.once('message', (data) =>
      resolve(JSON.parse(data.toString()) as Record<string, unknown>),
    );
    socket.on('error', reject);
  });
}

describe('a room of viewers behind one address, default limits', () => {
  it(`lets ${ROOM} viewers sign in within a minute and watch every stream, reconnecting once, while the per-name bounds hold`, async () => {
    // The clock stands still: everything below happens within one minute's window.
    const minute = new Date();
    const base = testConfig();
    const { app, store } = await build({
      config: { localStage: { ...base.localStage, url: stage.url }, trustProxy: true },
      deps: { passwords: fastPasswords, now: () => minute },
    });
    const names = Array.from({ length: ROOM }, (_, index) => `viewer${index}`);
    for (const name of names) await store.createUser(name, 'not-argon2: fastPasswords checks');
    // The stage admits the accounts the API tells it of, as server.ts wires it.
    const sync = new TokenGenerationSync({
      stage: { url: stage.url, secret: stageTokenSecret },
      readTable: () => store.listTokenGenerations(),
      log: { info: () => undefined, warn: () => undefined },
      pollMs: 50,
    });
    syncs.push(sync);
    sync.start();
    await waitUntil(() => stage.stage.generations.users === ROOM, 'the stage to know the room');
    const api = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');

    const signIn = (username: string, password: string) =>
      app.inject({
        method: 'POST',
        url: '/api/login',
        headers: { 'x-forwarded-for': OFFICE },
        payload: { username, password },
      });
    // The room signs in together, a third of them after mistyping their password first.
    const mistyped = await Promise.all(
      names.filter((_, index) => index % 3 === 0).map((name) => signIn(name, 'typo')),
    );
    expect(mistyped.map((response) => response.statusCode)).toEqual(mistyped.map(() => 401));
    const signedIn = await Promise.all(names.map((name) => signIn(name, PASSWORD)));
    expect(signedIn.map((response) => response.statusCode)).toEqual(names.map(() => 200));
    const loginTokens = signedIn.map((response) => (response.json() as { token: string }).token);

    const participantToken = async (loginToken: string, stageId: string) => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/token',
        headers: { authorization: `Bearer ${loginToken}`, 'x-forwarded-for': OFFICE },
        payload: { stageId, clientId: CLIENT_ID },
      });
      expect(response.statusCode).toBe(200);
      return (response.json() as { token: string }).token;
    };
    // Watch all, twice: the second round is each player reconnecting once, after its first
    // sockets closed (a player's next join waits for its last leave).
    for (const round of ['first', 'reconnect']) {
      const joins = await Promise.all(
        loginTokens.flatMap((loginToken) =>
          STREAM_IDS.map(async (stageId) =>
            joinFromOffice(api, await participantToken(loginToken, stageId)),
          ),
        ),
      );
      expect(
        joins.filter((answer) => answer.type === 'joined'),
        round,
      ).toHaveLength(ROOM * STREAM_IDS.length);
      for (const socket of sockets.splice(0)) socket.close();
      await waitUntil(() => stage.stage.stats().sockets === 0, 'the room to leave');
    }

    // The same address guessing one name is slowed down after that name's free attempts...
    const guesses = [];
    for (let attempt = 0; attempt < 11; attempt += 1) {
      guesses.push((await signIn('viewer1', `guess ${attempt}`)).statusCode);
    }
    // viewer1 signed in once already: 9 more free attempts, then a delay.
    expect(guesses).toEqual([...Array.from({ length: 9 }, () => 401), 429, 429]);
    // ...and the other viewers at that address are not.
    expect((await signIn('viewer2', PASSWORD)).statusCode).toBe(200);
  });

  it('still stops one address spraying many names, at the per-address limit', async () => {
    const { app, config } = await build({
      config: { trustProxy: true },
      deps: { passwords: fastPasswords },
    });
    const perMinute = config.loginLimits.attemptsPerAddressPerMinute;
    const statuses = await Promise.all(
      Array.from({ length: perMinute + 20 }, (_, index) =>
        app
          .inject({
            method: 'POST',
            url: '/api/login',
            headers: { 'x-forwarded-for': OFFICE },
            payload: { username: `name${index}`, password: 'guess' },
          })
          .then((response) => response.statusCode),
      ),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(perMinute);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  });
});
