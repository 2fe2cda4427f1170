/**
 * The camera publisher's key frame on request (a PLI): its latest frame handed to the encoder at
 * once, within 200 ms, rather than at its next tick. A bound that waits for the encoder: run alone
 * (SOLO in vitest.config.ts); the rest of the publisher is camera-publisher.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../testing/wait-until';
import { closeCameraPublishers, setUpCameraPublisher } from '../testing/whip-answerer';

const secret = new TextEncoder().encode('a-camera-publisher-test-secret-of-enough-length');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const setUp = (fps: number) => setUpCameraPublisher(secret, fps);

afterEach(closeCameraPublishers);

describe('a camera publisher (WHIP, against a minimal answerer)', { timeout: 40_000 }, () => {
  it('hands the encoder its latest frame at once after a PLI, rather than at the next tick', async () => {
    // One frame a second: the next tick is up to a second away (the PLI alone would wait for it).
    const { answerer, publisher } = await setUp(1);
    publisher.publish();
    publisher.setDemand({ video: true, audio: false });
    await waitUntil(() => (answerer.sessions[0]?.keyFrames.length ?? 0) > 0, 'the first key frame');
    const session = answerer.sessions[0];
    if (!session) throw new Error('no session');
    await sleep(100);

    const delays: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const keyFrames = session.keyFrames.length;
      const asked = performance.now();
      await session.sendPli();
      publisher.requestKeyFrame();
      await waitUntil(() => session.keyFrames.length > keyFrames, 'a key frame', 2_000);
      delays.push((session.keyFrames[keyFrames] ?? Infinity) - asked);
      await sleep(300);
    }
    expect(Math.max(...delays)).toBeLessThan(200);
  });
});
