/**
 * The WHIP door's admission (admission.ts): one PUBLISH token, or one aircraft, holds
 * only a few of the stage's connecting slots, so an encoder elsewhere still gets in; and a
 * session's trickle PATCHes are bounded. Over real sockets with GStreamer's captured offer, which
 * the stage answers and whose ICE never comes (a publisher that never connects).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStage } from '../../testing/test-stage';
import { gstreamerOffer } from '../../testing/whip-captures';
import { PUBLISH, testParticipantToken } from '../../testing/participant-tokens';
import { rawRequest, type RawAnswer } from '../../testing/raw-request';
import type { RunningStage } from '../start';

const secret = new TextEncoder().encode('a-whip-admission-test-secret-of-enough-length');
let running: RunningStage;

/** The offer simple-whip-client (GStreamer) sent, from the captured request. */
const realOffer = gstreamerOffer();

beforeAll(async () => {
  running = await startTestStage({ secret });
});

afterAll(async () => {
  await running?.close();
});

function publishToken(stageId: string, userId = `encoder-${crypto.randomUUID()}`) {
  return testParticipantToken({
    secret,
    stageUrl: running.url,
    stageId,
    userId,
    capabilities: PUBLISH,
    ttlSeconds: 600,
  });
}

function offer(stageId: string, token: string): Promise<RawAnswer> {
  return rawRequest(
    running.url,
    'POST',
    `/stage/whip/${stageId}`,
    { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
    realOffer,
  );
}

async function endAll(answers: RawAnswer[], token: string): Promise<void> {
  for (const answer of answers) {
    const location = answer.headers.location;
    if (typeof location === 'string') {
      await rawRequest(running.url, 'DELETE', location, { authorization: `Bearer ${token}` });
    }
  }
}

describe('connecting WHIP sessions, bounded per token and per aircraft', () => {
  it('a third connecting session for one token gets 503 while another token for another aircraft gets 201', async () => {
    const greedy = await publishToken('N743AS');
    const answers = [];
    for (let index = 0; index < 3; index += 1) answers.push(await offer('N743AS', greedy));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 503]);
    expect(JSON.parse(answers[2]?.text ?? '')).toEqual({
      error: 'This token already has 2 sessions connecting; wait for one to connect, or end it',
    });
    expect(answers[2]?.headers['retry-after']).toBe('5');

    const other = await publishToken('N953AS');
    const elsewhere = await offer('N953AS', other);
    expect(elsewhere.status).toBe(201);
    await endAll(answers, greedy);
    await endAll([elsewhere], other);
  });

  it('a fifth connecting session for one aircraft gets 503 while another aircraft still takes one', async () => {
    const tokens = await Promise.all(Array.from({ length: 5 }, () => publishToken('N954AS')));
    const answers = [];
    for (const token of tokens) answers.push(await offer('N954AS', token));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 503]);
    expect(JSON.parse(answers[4]?.text ?? '')).toEqual({
      error: 'N954AS already has 4 publishers connecting; try again in a few seconds',
    });
    const other = await publishToken('N743AS');
    const elsewhere = await offer('N743AS', other);
    expect(elsewhere.status).toBe(201);
    for (const [index, token] of tokens.entries()) await endAll([answers[index]!], token);
    await endAll([elsewhere], other);
    expect(running.stage.stats().stages.N954AS?.connectingPublishers).toBe(0);
  });
});

describe('trickle ICE PATCHes, bounded per session', () => {
  const fragment = 'a=candidate:1 1 UDP 2130706431 192.0.2.1 50000 typ host\r\n';

  it('takes 200 PATCHes of a WHIP session, answers the 201st 429 with a reason, and the session is unchanged', async () => {
    const token = await publishToken('N743AS');
    const posted = await offer('N743AS', token);
    expect(posted.status).toBe(201);
    const location = String(posted.headers.location);
    const patch = () =>
      rawRequest(
        running.url,
        'PATCH',
        location,
        { 'content-type': 'application/trickle-ice-sdpfrag', authorization: `Bearer ${token}` },
        fragment,
      );
    const statuses: number[] = [];
    for (let index = 0; index < 200; index += 1) statuses.push((await patch()).status);
    expect(statuses.every((status) => status === 204)).toBe(true);
    const refused = await patch();
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text)).toEqual({
      error: 'Too many trickle ICE updates for this session (at most 200)',
    });
    expect((await patch()).status).toBe(429);
    // Nothing changed: the session is still there, and its DELETE ends it.
    expect(running.stage.stats().stages.N743AS?.connectingPublishers).toBe(1);
    const deleted = await rawRequest(running.url, 'DELETE', location, {
      authorization: `Bearer ${token}`,
    });
    expect(deleted.status).toBe(200);
  });
});
