/**
 * One camera publisher against a minimal WHIP answerer (src/testing/whip-answerer.ts): werift
 * receive-only peers, ICE lite with their candidates in the answer (as the stage's are). It proves
 * the publishing side on its own: the POST, the token, VP8 frames only while asked for, the
 * retries and the DELETE. The key frame on request, whose bound is a time, is
 * camera-publisher-key-frame.test.ts (run alone: SOLO in vitest.config.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { verifyParticipantToken } from '@tailcam/protocol/participant-token';
import { SYNTHETIC_CAMERA_USER_ID } from '../camera-link';
import { waitUntil } from '../testing/wait-until';
import { closeCameraPublishers, setUpCameraPublisher } from '../testing/whip-answerer';

const secret = new TextEncoder().encode('a-camera-publisher-test-secret-of-enough-length');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const setUp = (fps: number) => setUpCameraPublisher(secret, fps);

afterEach(closeCameraPublishers);

describe('a camera publisher (WHIP, against a minimal answerer)', { timeout: 40_000 }, () => {
  it('publishes with its PUBLISH token, sends VP8 only while video is asked for, and DELETEs its session on close', async () => {
    const { answerer, publisher } = await setUp(30);
    publisher.publish();
    await waitUntil(() => publisher.state === 'published', 'the session connected');
    const [session] = answerer.sessions;
    if (!session) throw new Error('no session');
    const claims = await verifyParticipantToken(session.token, {
      secret,
      stageId: 'N743AS',
      capability: 'publish',
    });
    expect(claims).toMatchObject({
      user_id: SYNTHETIC_CAMERA_USER_ID,
      capabilities: { allow_publish: true, allow_subscribe: false },
    });

    // Nobody watches: the camera draws nothing, the encoder sends nothing.
    await sleep(400);
    expect(session.videoPackets).toHaveLength(0);
    expect(publisher.stats()).toMatchObject({ camera: 'idle', framesDrawn: 1 });

    publisher.setDemand({ video: true, audio: true });
    await waitUntil(() => session.videoPackets.length > 0, 'video');
    expect(session.keyFrames[0]).toBe(session.videoPackets[0]);
    await waitUntil(() => session.audioPackets > 10, 'the cabin sound');
    await waitUntil(() => publisher.stats().framesDrawn > 10, 'frames drawn');
    expect(publisher.stats().framesDrawn).toBeGreaterThan(10);

    publisher.setDemand({ video: false, audio: false });
    await sleep(200);
    const sent = session.videoPackets.length;
    await sleep(300);
    expect(session.videoPackets.length).toBe(sent);
    expect(publisher.stats()).toMatchObject({ state: 'published', sessions: 1, camera: 'idle' });

    await publisher.close();
    expect(session.deleted).toBe(true);
  });

  it('retries a refused POST with backoff, and waits off air when the stage holds its camera', async () => {
    const { answerer, publisher } = await setUp(30);
    answerer.refusals.push(503, 503);
    publisher.publish();
    await waitUntil(() => publisher.state === 'published', 'published after two refusals');
    expect(answerer.posts).toBe(3);

    // The stage ends the session (here: its peer closes): the publisher comes back by itself, once
    // libwebrtc sees the peer gone (werift says no goodbye: ~6 s, its consent checks failing).
    await answerer.sessions[0]?.peer.close();
    await waitUntil(() => publisher.stats().sessions === 2, 'a second session', 20_000);

    answerer.refusals.push(409);
    publisher.publish();
    await waitUntil(() => publisher.state === 'off-air', 'off air');
    const posts = answerer.posts;
    await sleep(600);
    expect(answerer.posts).toBe(posts);

    publisher.setOnAir(true);
    await waitUntil(() => publisher.stats().sessions === 3, 'back on air');
  });
});
