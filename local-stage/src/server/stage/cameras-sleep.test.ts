/**
 * The cameras sleep (decision 0074), end to end in one process: a real stage and the camera
 * process's publishers, with a short sleep-after. After the idle spell the camera's WHIP session
 * ends and the stage stays ready; a viewer's join wakes it and plays the aircraft's picture; a
 * WHEP offer waits for the camera rather than being refused, the recorder's neither wakes it nor
 * keeps it awake; the API's presence call wakes it; a fault that holds the camera off air still
 * holds it through a wake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RTCPeerConnection } from 'werift';
import { RECORDER_USER_ID } from '@tailcam/protocol/participant-token';
import { issueStageControlToken, PRESENCE_PATH } from '@tailcam/protocol/stage-control';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { NodeViewer } from '../../testing/node-viewer';
import { testParticipantToken } from '../../testing/participant-tokens';
import { startStageWithCameras, type StageWithCameras } from '../../testing/stage-with-cameras';
import { waitUntil } from '../../testing/wait-until';
import { vp8Codec } from '../../testing/werift-codecs';
import type { ParticipantDescription } from '../../signalling';

const secret = new TextEncoder().encode('a-cameras-sleep-test-secret-of-enough-length');

/** The API's presence call, with its control token (decision 0082). */
const presence = async () =>
  fetch(`${running.url}${PRESENCE_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await issueStageControlToken(secret)}` },
  });
const STAGE = 'N743AS';
const SLEEP_AFTER_MS = 1_500;
let running: StageWithCameras;

beforeAll(async () => {
  running = await startStageWithCameras({
    secret,
    faultsEnabled: true,
    syntheticCameras: [STAGE],
    cameraSleepAfterMs: SLEEP_AFTER_MS,
  });
});

afterAll(async () => {
  await running?.close();
});

const cameraProcessState = () => running.cameras.stats().cameras[STAGE]?.state;

/** Asleep as the stage and the camera process see it, its WHIP session gone, the stage ready. */
async function asleep(): Promise<void> {
  await waitUntil(
    () =>
      cameraProcessState() === 'asleep' && running.stage.stats().stages[STAGE]?.publisher === null,
    'the camera asleep, its session ended',
    10_000,
  );
  const stats = running.stage.stats();
  expect(stats.cameras).toBe('asleep');
  expect(stats.stages[STAGE]?.camera.state).toBe('asleep');
  expect(running.stage.health().ready).toBe(true);
}

describe('cameras sleep', { timeout: 30_000 }, () => {
  it('end their session after the idle spell, and a join wakes them and plays', async () => {
    await asleep();
    const sessionsBefore = running.cameras.stats().cameras[STAGE]?.sessions ?? 0;

    const viewer = new NodeViewer(`${running.url.replace('http', 'ws')}/stage/events`);
    try {
      const joined = await viewer.join(
        await testParticipantToken({ secret, stageUrl: running.url, stageId: STAGE }),
      );
      expect(joined.type).toBe('joined');
      // Nobody on air at the join, or the camera already back (it woke at the socket's open).
      let participant: ParticipantDescription | undefined =
        joined.type === 'joined' ? joined.participants[0] : undefined;
      if (!participant) {
        const announced = await viewer.waitForMessage(
          (message) => message.type === 'participantJoined',
        );
        participant = announced.type === 'participantJoined' ? announced.participant : undefined;
      }
      expect(participant?.attributes.kind).toBe('camera');
      await viewer.subscribe(participant);
      const index = STREAM_IDS.indexOf(STAGE);
      await viewer.waitFor(
        () => viewer.frames.some((frame) => frame.strip?.streamIndex === index),
        'a frame naming the aircraft',
      );
      expect(running.cameras.stats().cameras[STAGE]?.sessions).toBe(sessionsBefore + 1);
      // Watched: awake past the spell.
      await new Promise((done) => setTimeout(done, SLEEP_AFTER_MS * 1.5));
      expect(running.stage.stats().cameras).toBe('awake');
    } finally {
      viewer.close();
    }
    // The last viewer gone: asleep again a spell later.
    await asleep();
  });

  it('a WHEP offer while they sleep waits for the camera and is answered', async () => {
    await asleep();
    const peer = new RTCPeerConnection({
      codecs: { video: [vp8Codec()], audio: [] },
      iceServers: [],
      iceUseIpv6: false,
    });
    try {
      peer.addTransceiver('video', { direction: 'recvonly' });
      await peer.setLocalDescription(await peer.createOffer());
      const token = await testParticipantToken({ secret, stageUrl: running.url, stageId: STAGE });
      const response = await fetch(`${running.url}/stage/whep/${STAGE}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
        body: peer.localDescription?.sdp,
      });
      expect(response.status).toBe(201);
      expect(await response.text()).toContain('a=rtpmap');
      // The player leaves as WHEP says: its session's DELETE.
      const location = new URL(response.headers.get('location') ?? '', running.url);
      const left = await fetch(location, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(left.status).toBe(200);
    } finally {
      await peer.close();
    }
  });

  it("the recorder's WHEP offer neither wakes them nor keeps them awake", async () => {
    await asleep();
    const offer = async () => {
      const peer = new RTCPeerConnection({
        codecs: { video: [vp8Codec()], audio: [] },
        iceServers: [],
        iceUseIpv6: false,
      });
      peer.addTransceiver('video', { direction: 'recvonly' });
      await peer.setLocalDescription(await peer.createOffer());
      const token = await testParticipantToken({
        secret,
        stageUrl: running.url,
        stageId: STAGE,
        userId: RECORDER_USER_ID,
      });
      const response = await fetch(`${running.url}/stage/whep/${STAGE}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
        body: peer.localDescription?.sdp,
      });
      return { peer, status: response.status };
    };
    const whileAsleep = await offer();
    await whileAsleep.peer.close();
    expect(whileAsleep.status).toBe(503);
    expect(running.stage.stats().cameras).toBe('asleep');

    // Woken by someone, then recorded alone: asleep again a spell later, the recording ended.
    await presence();
    await waitUntil(
      () => running.stage.stats().stages[STAGE]?.publisher?.kind === 'camera',
      'the camera back on air',
      10_000,
    );
    const recording = await offer();
    try {
      expect(recording.status).toBe(201);
      await asleep();
    } finally {
      await recording.peer.close();
    }
  });

  it("the API's presence call wakes them; a camera held off air stays off through a wake", async () => {
    await asleep();
    const woken = await presence();
    expect(await woken.json()).toEqual({ wasAsleep: true });
    await waitUntil(
      () =>
        cameraProcessState() === 'published' &&
        running.stage.stats().stages[STAGE]?.publisher?.kind === 'camera',
      'the camera back on air',
      10_000,
    );

    await asleep();
    running.stage.faults.stopCamera(STAGE);
    await presence();
    await waitUntil(() => cameraProcessState() === 'off-air', 'the camera held off air', 10_000);
    await new Promise((done) => setTimeout(done, 300));
    expect(running.stage.stats().stages[STAGE]?.publisher).toBeNull();
    expect(running.stage.stats().stages[STAGE]?.camera.state).toBe('stopped');
    running.stage.faults.startCamera(STAGE);
    await presence();
    await waitUntil(() => cameraProcessState() === 'published', 'the camera on air again', 10_000);
  });
});
