/**
 * The accounts' token generations at the stage's doors (decision 0058): the loopback-only
 * `/_control/token-generations` route that takes the API's table, readiness that waits for it,
 * and an account's token issued before its last change refused at the socket join, WHEP and WHIP
 * alike; operators' tokens (no generation) are not an account's and pass.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { NodeViewer } from '../../testing/node-viewer';
import { rawRequest } from '../../testing/raw-request';
import { callStage, stagesAwaitingTable } from '../../testing/stage-awaiting-table';
import type { RunningStage } from '../start';

const secret = new TextEncoder().encode('a-local-stage-test-secret-of-enough-length');
const OFFER = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n';
const stages = stagesAwaitingTable(secret);
const viewers: NodeViewer[] = [];
let participants = 0;

afterEach(() => {
  for (const viewer of viewers.splice(0)) viewer.close();
});

function token(
  stage: RunningStage,
  userId: string,
  tokenGeneration: number | undefined,
  capability: 'subscribe' | 'publish' = 'subscribe',
): Promise<string> {
  participants += 1;
  return issueParticipantToken({
    secret,
    participantId: `participant-${participants}`,
    stageId: 'N743AS',
    userId,
    attributes: {},
    capabilities: { publish: capability === 'publish', subscribe: capability === 'subscribe' },
    stageBaseUrl: `${stage.url}/stage`,
    ttlSeconds: 60,
    tokenGeneration,
  });
}

function join(stage: RunningStage, participantToken: string) {
  const viewer = new NodeViewer(`${stage.url.replace('http', 'ws')}/stage/events`);
  viewers.push(viewer);
  return { viewer, answer: viewer.join(participantToken) };
}

/** A call as the API makes it: with its control token (decision 0082). */
async function control(stage: RunningStage, method: string, path: string, body?: unknown) {
  return callStage(stage, method, path, body, await stages.asTheApi());
}

/** An offer at WHIP or WHEP: its status and `{error}` (the token is checked before the SDP). */
async function offer(stage: RunningStage, door: 'whip' | 'whep', bearer: string) {
  const answer = await rawRequest(
    stage.url,
    'POST',
    `/stage/${door}/N743AS`,
    { 'content-type': 'application/sdp', authorization: `Bearer ${bearer}` },
    OFFER,
  );
  return {
    status: answer.status,
    error: (JSON.parse(answer.text) as { error?: string }).error,
    authenticate: answer.headers['www-authenticate'],
  };
}

const REVOKED_JOIN = {
  type: 'error',
  category: 'JOIN_ERROR',
  code: 2,
  message: 'Token expired and is no longer valid',
  details: "Token was revoked: issued before its account's password change, disable or removal",
  fatal: true,
};
const REVOKED_OFFER = { status: 401, error: 'The token has been revoked', authenticate: 'Bearer' };

describe("the stage's table of token generations", () => {
  it('is not ready until the API has sent the table; a join that comes meanwhile waits for it', async () => {
    const stage = await stages.start();
    expect(stage.stage.health()).toMatchObject({
      ready: false,
      reason: "waiting for the accounts' token generations from the API",
    });
    expect(JSON.parse((await control(stage, 'GET', '/_control/token-generations')).text)).toEqual({
      loaded: false,
      users: 0,
      stageRun: stage.stage.generations.run,
    });
    const waiting = join(stage, await token(stage, 'alice', 0));

    const put = await stages.loadTable(stage, { alice: 0, bob: 4 });
    expect({ status: put.status, body: JSON.parse(put.text) as unknown }).toEqual({
      status: 200,
      body: { loaded: true, users: 2, stageRun: stage.stage.generations.run },
    });
    expect(await waiting.answer).toMatchObject({ type: 'joined' });
    expect(stage.stage.health()).toMatchObject({ ready: true });
  });

  it("refuses, at the socket, WHEP and WHIP, an account's token issued before its change, and takes one issued after", async () => {
    const stage = await stages.start();
    await stages.loadTable(stage, { alice: 0 });
    const before = await token(stage, 'alice', 0);
    const publishBefore = await token(stage, 'alice', 0, 'publish');
    const watching = join(stage, before);
    expect(await watching.answer).toMatchObject({ type: 'joined' });

    const ended = await control(stage, 'POST', '/_control/end-user-sessions', {
      userId: 'alice',
      tokenGeneration: 1,
    });
    expect(JSON.parse(ended.text)).toEqual({ ended: 1 });
    await watching.viewer.waitFor(() => watching.viewer.closed !== undefined, 'the session end');

    expect(await join(stage, before).answer).toEqual(REVOKED_JOIN);
    expect(await offer(stage, 'whep', before)).toEqual(REVOKED_OFFER);
    expect(await offer(stage, 'whip', publishBefore)).toEqual(REVOKED_OFFER);

    const after = await token(stage, 'alice', 1);
    expect(await join(stage, after).answer).toMatchObject({ type: 'joined' });
    // Past the token check: nothing is on air here.
    expect((await offer(stage, 'whep', after)).status).toBe(503);
  });

  it("refuses an account the table does not name (removed), and lets operators' tokens (no generation) in", async () => {
    const stage = await stages.start();
    await stages.loadTable(stage, {});
    expect(await join(stage, await token(stage, 'removed', 0)).answer).toEqual(REVOKED_JOIN);
    expect(await offer(stage, 'whep', await token(stage, 'removed', 0))).toEqual(REVOKED_OFFER);

    const player = await token(stage, 'operator-player-1', undefined);
    expect(await join(stage, player).answer).toMatchObject({ type: 'joined' });
    expect((await offer(stage, 'whep', player)).status).toBe(503);
    const encoder = await token(stage, 'encoder-N743AS', undefined, 'publish');
    // Past the token check: the offer itself is refused.
    expect((await offer(stage, 'whip', encoder)).status).toBe(400);
  });

  it("holds the API's long poll while it has the table, answers at once without one, and refuses a bad wait", async () => {
    const stage = await stages.start();
    const timed = async (path: string) => {
      const started = performance.now();
      const answer = await control(stage, 'GET', path);
      return { status: answer.status, ms: performance.now() - started, text: answer.text };
    };
    // No table yet: the API must send it now, so the question is answered at once.
    const quick = await timed('/_control/token-generations?wait=2');
    expect(quick.status).toBe(200);
    expect(quick.ms).toBeLessThan(1_500);

    await stages.loadTable(stage, { alice: 0 });
    const held = await timed('/_control/token-generations?wait=2');
    expect(JSON.parse(held.text)).toEqual({
      loaded: true,
      users: 1,
      stageRun: stage.stage.generations.run,
    });
    expect(held.ms).toBeGreaterThanOrEqual(1_900);

    for (const wait of ['0', '61', '1.5', 'soon', '']) {
      const answer = await timed(`/_control/token-generations?wait=${wait}`);
      expect(answer.status, wait).toBe(400);
      expect(JSON.parse(answer.text)).toEqual({ error: 'wait must be whole seconds, 1 to 60' });
    }
  });

  it('refuses a bad table, another method, and any path under /stage/', async () => {
    const stage = await stages.start();
    for (const body of [
      {},
      { generations: { alice: -1 } },
      { generations: { alice: 1.5 } },
      { generations: { '': 1 } },
      { generations: [1] },
      'not json',
    ]) {
      const answer = await control(stage, 'PUT', '/_control/token-generations', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    expect((await control(stage, 'DELETE', '/_control/token-generations')).status).toBe(405);
    for (const sneaky of [
      '/stage/_control/token-generations',
      '/stage/../_control/token-generations',
      '/stage/%2e%2e/_control/token-generations',
    ]) {
      const answer = await control(stage, 'PUT', sneaky, { generations: {} });
      expect(answer.status, sneaky).toBe(404);
    }
    expect(stage.stage.generations.loaded).toBe(false);
  });
});
