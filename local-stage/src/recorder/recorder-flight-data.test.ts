/**
 * Who gets the synthetic camera's flight data as the VP8 trailer (decisions 0094, 0096): the
 * recorder's WHEP session, by its token's user id, and not a WHEP player's. A third party's WHEP
 * player watches N743AS (so the recorder writes) and gets the frames as published, not one with
 * the trailer's magic; the recorder's segments have their flight data beside them.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RtpPacket } from 'werift';
import { readSpans } from '@tailcam/protocol/recordings-store';
import { FrameAssembler } from '../codecs/rtp-frames';
import { takeTrailer } from '../codecs/in-band';
import { testParticipantToken } from '../testing/participant-tokens';
import { startRecordingStage, type RecordingStage } from '../testing/test-recorder';
import { waitUntil } from '../testing/wait-until';
import { deleteWhepSession, postWhepOffer, whepPeer } from '../whep-client';

const secret = new TextEncoder().encode('a-recorder-flight-data-test-secret-long!!');
let setup: RecordingStage | undefined;

beforeAll(async () => {
  setup = await startRecordingStage(
    {
      faultsEnabled: false,
      syntheticCameras: ['N743AS'],
      camera: { width: 320, height: 180, fps: 15, idleMs: 0, simulcast: false },
    },
    { secret, prefix: 'tailcam-recorder-flight-' },
  );
}, 30_000);

afterAll(() => setup?.close());

describe("the camera's flight data in VP8", () => {
  it("reaches the recorder's segments, and a WHEP player gets the frames as published", async () => {
    const { running, recorder, root } = setup!;
    await waitUntil(() => recorder.recording().N743AS === 'camera', 'recording N743AS', 10_000);

    const { peer, video } = whepPeer({ audio: false, h264Parameters: 'packetization-mode=1' });
    const frames: Buffer[] = [];
    const assembler = new FrameAssembler('vp8', 90_000, (frame) => frames.push(frame.data));
    video.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((rtp: RtpPacket) => assembler.push(rtp)),
    );
    await peer.setLocalDescription(await peer.createOffer());
    await new Promise((resolve) => setTimeout(resolve, 200));
    const token = await testParticipantToken({ secret, stageUrl: running.url, stageId: 'N743AS' });
    const answer = await postWhepOffer({
      stageUrl: running.url,
      stageId: 'N743AS',
      token,
      offer: peer.localDescription?.sdp ?? '',
      timeoutMs: 10_000,
    });
    expect(answer.status).toBe(201);
    await peer.setRemoteDescription({ type: 'answer', sdp: answer.body });
    try {
      // Watched: the recorder writes, each segment with its data (a sample a second, the newest
      // on each key frame).
      await waitUntil(
        async () =>
          ((await readSpans(root, 'N743AS'))[0]?.segments.length ?? 0) >= 2 && frames.length >= 45,
        'two segments recorded and three seconds played',
        20_000,
      );
    } finally {
      if (answer.location) await deleteWhepSession({ url: answer.location, token }, 2_000);
      await peer.close();
    }
    expect(frames.filter((frame) => takeTrailer(frame).messages.length > 0)).toEqual([]);
    const [span] = await readSpans(root, 'N743AS');
    const files = readdirSync(span?.dir ?? '');
    for (const segment of span?.segments ?? []) {
      expect(files).toContain(`${segment.name.replace(/-\d+\.webm$/, '')}.flight`);
    }
  }, 40_000);
});
