/**
 * A signed-in viewer's requests tell the local stage they are about, so that sleeping cameras wake
 * before a click (decision 0074): at most one call every few seconds, and never a wait for it.
 */
import { describe, expect, it } from 'vitest';
import { PRESENCE_PATH } from '@tailcam/protocol/stage-control';
import { createLocalStageProvider, PRESENCE_INTERVAL_MS } from '../providers/local-provider';
import { build, CLIENT_ID, stageTokenSecret } from '../test/helpers';
import { startStandInStage, type StandInStage } from '../test/stand-in-stage';

/** The call is fired and forgotten: the test waits for it to reach the stand-in. */
async function waitForCalls(stage: StandInStage, count: number): Promise<void> {
  const deadline = performance.now() + 5_000;
  while (presenceCalls(stage).length < count) {
    if (performance.now() > deadline) throw new Error(`${count} presence call(s) never came`);
    await new Promise((done) => setTimeout(done, 10));
  }
}

async function signedInWith(stage: StandInStage, now: () => number) {
  const test = await build({
    deps: {
      stageProvider: createLocalStageProvider({
        secret: stageTokenSecret,
        ttlMinutes: 60,
        publicUrl: undefined,
        stageUrl: stage.url,
        presence: { now },
      }),
      thumbnails: { latest: async () => undefined },
    },
  });
  await test.addUser('alice', 'correct horse');
  return { ...test, token: await test.login('alice', 'correct horse') };
}

const presenceCalls = (stage: StandInStage) =>
  stage.received.filter((request) => request.url === PRESENCE_PATH);

describe("the API's presence call to the local stage", () => {
  it('a signed-in request wakes the stage, once every few seconds at most; an anonymous one never', async () => {
    const stage = await startStandInStage((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"wasAsleep":true}');
    });
    let clock = 1_000_000;
    const { app, token } = await signedInWith(stage, () => clock);
    const thumbnail = { authorization: `Bearer ${token}` };

    expect((await app.inject({ url: '/api/thumbnails/N743AS' })).statusCode).toBe(401);
    const first = await app.inject({ url: '/api/thumbnails/N743AS', headers: thumbnail });
    expect(first.statusCode).toBe(204);
    await waitForCalls(stage, 1);
    expect(presenceCalls(stage)[0]?.method).toBe('POST');

    // A burst (a page's cards, a token): one call for all of it.
    clock += PRESENCE_INTERVAL_MS - 1;
    await app.inject({ url: '/api/thumbnails/N953AS', headers: thumbnail });
    const tokenRequest = await app.inject({
      method: 'POST',
      url: '/api/token',
      headers: thumbnail,
      payload: { stageId: 'N743AS', clientId: CLIENT_ID },
    });
    expect(tokenRequest.statusCode).toBe(200);
    clock += 1;
    await app.inject({ url: '/api/token', method: 'POST', headers: thumbnail, payload: {} });
    await waitForCalls(stage, 2);
    await new Promise((done) => setTimeout(done, 100));
    expect(presenceCalls(stage)).toHaveLength(2);
  });

  it('never makes the request wait, even for a stage that does not answer', async () => {
    // Holds every request unanswered until the test ends.
    const stage = await startStandInStage(() => undefined);
    const { app, token } = await signedInWith(stage, () => performance.now());
    const started = performance.now();
    const response = await app.inject({
      url: '/api/thumbnails/N743AS',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(204);
    // Far below the control call's own 5 s timeout: the request did not wait for it.
    expect(performance.now() - started).toBeLessThan(2_000);
    await waitForCalls(stage, 1);
  });
});
