/**
 * The API's feed at the stage (decision 0098): `GET /_control/events` needs the control token,
 * says a WHIP publisher's Joined and Published, then its Unpublished and Left, and a person's
 * WHEP session's Joined and Left, never the recorder's or the thumbnail process's; it counts the
 * persons watching each aircraft, holds a question with nothing new until an event comes, and
 * answers a caller of another run from its first event.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RECORDER_USER_ID } from '@tailcam/protocol/participant-token';
import {
  issueStageControlToken,
  stageEventsAnswer,
  type StageEventsAnswer,
} from '@tailcam/protocol/stage-control';
import { THUMBNAILS_USER_ID } from '@tailcam/protocol/thumbnails';
import { publishNoiseOn } from '../../testing/noise-publisher';
import { testParticipantToken } from '../../testing/participant-tokens';
import { waitUntil } from '../../testing/wait-until';
import { deleteWhepSession, postWhepOffer, whepPeer } from '../../whep-client';
import { startLocalStage, type RunningStage } from '../start';

const secret = new TextEncoder().encode('an-events-route-test-secret-of-enough-length');
const STAGE = 'N743AS';
let running: RunningStage;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  running = await startLocalStage({
    host: '127.0.0.1',
    port: 0,
    secret,
    faultsEnabled: false,
    syntheticCameras: [],
  });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => running.close());

async function events(query: string, bearer = true): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${running.url}/_control/events${query}`, {
    headers: bearer ? { authorization: `Bearer ${await issueStageControlToken(secret)}` } : {},
  });
  return { status: response.status, body: await response.json() };
}

async function feed(query = ''): Promise<StageEventsAnswer> {
  const { status, body } = await events(query);
  expect(status).toBe(200);
  return stageEventsAnswer.parse(body);
}

/** A receive-only WHEP player of N743AS as `userId`; resolves once the stage answered. */
async function watchAs(userId: string): Promise<() => Promise<void>> {
  const { peer } = whepPeer({ audio: false, h264Parameters: 'packetization-mode=1' });
  await peer.setLocalDescription(await peer.createOffer());
  await waitUntil(() => peer.iceGatheringState === 'complete', 'ICE gathered', 5_000);
  const token = await testParticipantToken({
    secret,
    stageUrl: running.url,
    stageId: STAGE,
    userId,
  });
  const answer = await postWhepOffer({
    stageUrl: running.url,
    stageId: STAGE,
    token,
    offer: peer.localDescription?.sdp ?? '',
    timeoutMs: 10_000,
  });
  expect(answer.status).toBe(201);
  await peer.setRemoteDescription({ type: 'answer', sdp: answer.body });
  const close = async () => {
    if (answer.location) await deleteWhepSession({ url: answer.location, token }, 2_000);
    await peer.close().catch(() => undefined);
  };
  cleanups.push(close);
  return close;
}

const summary = (answer: StageEventsAnswer) =>
  answer.events.map((event) => `${event.name} (${event.role}, ${event.userId})`);

describe('GET /_control/events', () => {
  it('needs the control token, and refuses a bad after or wait', async () => {
    expect((await events('', false)).status).toBe(401);
    expect((await events('?after=x')).status).toBe(400);
    expect((await events('?after=1&wait=61')).status).toBe(400);
  });

  it("says a publisher's and a person's comings and goings, never the recorder's or the thumbnails'", async () => {
    const start = (await feed()).last;
    // A question with nothing new is held, and answered by the publisher's coming.
    const held = feed(`?after=${String(start)}&run=${(await feed()).run}&wait=20`);
    const publisher = await publishNoiseOn({
      secret,
      stageUrl: running.url,
      stageId: STAGE,
      userId: 'encoder-1',
      width: 160,
      height: 90,
      fps: 10,
    });
    cleanups.push(() => publisher.close().catch(() => undefined));
    expect(summary(await held)).toEqual([
      'Participant Joined (publisher, encoder-1)',
      'Participant Published (publisher, encoder-1)',
    ]);

    // Its video's bitrate, once measured (null before its first packet).
    await waitUntil(
      async () => ((await feed()).aircraft[STAGE]?.bitrate ?? 0) > 0,
      "the publisher's bitrate",
      5_000,
      100,
    );
    const leave = await watchAs('viewer-1');
    await watchAs(RECORDER_USER_ID);
    await watchAs(THUMBNAILS_USER_ID);
    await waitUntil(
      async () => (await feed()).aircraft[STAGE]?.viewers === 1,
      'one person watching',
      5_000,
    );
    await leave();
    await publisher.close();
    await waitUntil(async () => (await feed()).last === start + 6, 'six events', 10_000);

    const answer = await feed(`?after=${String(start)}`);
    expect(summary(answer)).toEqual([
      'Participant Joined (publisher, encoder-1)',
      'Participant Published (publisher, encoder-1)',
      'Participant Joined (viewer, viewer-1)',
      'Participant Left (viewer, viewer-1)',
      'Participant Unpublished (publisher, encoder-1)',
      'Participant Left (publisher, encoder-1)',
    ]);
    expect(answer.aircraft[STAGE]).toEqual({
      publishers: [],
      bitrate: null,
      viewers: 0,
      cameraAsleep: false,
    });

    // A caller of another run (a stage that restarted since) gets this run's events from its first.
    const other = await feed(`?after=${String(answer.last)}&run=another-run`);
    expect(other.events[0]?.seq).toBe(other.first);
  }, 30_000);
});
