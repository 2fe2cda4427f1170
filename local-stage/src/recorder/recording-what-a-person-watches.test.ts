/**
 * What the recorder records of a synthetic camera (docs/decisions/0084-recording-what-a-person-watches.md):
 * exactly what a person watches. The thumbnail process's subscription (its `user_id`) wakes the
 * camera, which then sends frames to the recorder too, and nothing is written; a person's
 * subscription, the same WHEP player with a viewer's token, is recorded; when the person leaves
 * while the thumbnail process still watches, writing stops. Each segment has its preview: the key
 * frame it starts with as a JPEG 160 px wide (decoded by the system's ffmpeg, read back by
 * @napi-rs/canvas), listed in the span's index after it. A real encoder is recorded with nobody
 * watching it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadImage } from '@napi-rs/canvas';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSpans, type StoredSegment } from '@tailcam/protocol/recordings-store';
import {
  parseSegmentIndexLine,
  previewFileName,
  SEGMENT_INDEX_FILE,
} from '@tailcam/protocol/recordings';
import { THUMBNAILS_USER_ID } from '@tailcam/protocol/thumbnails';
import { publishNoiseOn } from '../testing/noise-publisher';
import { testParticipantToken } from '../testing/participant-tokens';
import type { StageWithCameras } from '../testing/stage-with-cameras';
import { startRecordingStage, type RecordingStage } from '../testing/test-recorder';
import { waitUntil } from '../testing/wait-until';
import { deleteWhepSession, postWhepOffer, whepPeer } from '../whep-client';
import { Recorder } from './recorder';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
if (!hasFfmpeg) console.warn('[recorder] ffmpeg is not installed: the preview test is skipped');
const secret = new TextEncoder().encode('a-recorder-watch-test-secret-of-enough-length');
let running: StageWithCameras;
let root: string;
let recorder: Recorder;
let setup: RecordingStage | undefined;
const segments: string[] = [];
const players: WhepPlayer[] = [];

interface WhepPlayer {
  videoPackets: () => number;
  close: () => Promise<void>;
}

/** A receive-only WHEP player of N743AS's video as `userId` (werift, as the thumbnail process's). */
async function watchAs(userId: string): Promise<WhepPlayer> {
  const { peer } = whepPeer({ audio: false, h264Parameters: 'packetization-mode=1' });
  let packets = 0;
  peer.onTrack.subscribe((track) => track.onReceiveRtp.subscribe(() => (packets += 1)));
  await peer.setLocalDescription(await peer.createOffer());
  await waitUntil(() => peer.iceGatheringState === 'complete', 'ICE gathered', 5_000);
  const token = await testParticipantToken({
    secret,
    stageUrl: running.url,
    stageId: 'N743AS',
    userId,
  });
  const answer = await postWhepOffer({
    stageUrl: running.url,
    stageId: 'N743AS',
    token,
    offer: peer.localDescription?.sdp ?? '',
    timeoutMs: 10_000,
  });
  expect(answer.status).toBe(201);
  await peer.setRemoteDescription({ type: 'answer', sdp: answer.body });
  const player = {
    videoPackets: () => packets,
    close: async () => {
      players.splice(players.indexOf(player), 1);
      if (answer.location) await deleteWhepSession({ url: answer.location, token }, 2_000);
      await peer.close().catch(() => undefined);
    },
  };
  players.push(player);
  return player;
}

/** Each segment the span's index says was begun is finished (its `+` line has come). */
function everySegmentFinished(dir: string): boolean {
  const entries = readFileSync(join(dir, SEGMENT_INDEX_FILE), 'utf8')
    .split('\n')
    .map((line) => parseSegmentIndexLine(line));
  const begun = entries.flatMap((entry) => (entry?.change === 'writing' ? [entry.offsetMs] : []));
  const finished = new Set(
    entries.flatMap((entry) => (entry?.change === 'added' ? [entry.segment.offsetMs] : [])),
  );
  return begun.every((offsetMs) => finished.has(offsetMs));
}

beforeAll(async () => {
  setup = await startRecordingStage(
    {
      faultsEnabled: false,
      syntheticCameras: ['N743AS'],
      camera: { width: 320, height: 180, fps: 15, idleMs: 0, simulcast: false },
    },
    {
      secret,
      prefix: 'tailcam-recorder-watch-test-',
      ...(hasFfmpeg ? { previewFfmpeg: 'ffmpeg' } : {}),
      onSegment: (_stageId, path) => segments.push(path),
    },
  );
  ({ running, root, recorder } = setup);
  await waitUntil(() => recorder.recording().N743AS === 'camera', 'recorder subscribed', 10_000);
}, 30_000);

afterEach(async () => {
  await Promise.all([...players].map((player) => player.close()));
});

afterAll(() => setup?.close());

describe('the recorder and a synthetic camera', () => {
  it('writes nothing while only the thumbnail process wakes the camera, then records a person', async () => {
    const thumbnails = await watchAs(THUMBNAILS_USER_ID);
    // The camera draws for it (its demand), and so the recorder's subscription gets frames too:
    // three segments' worth (1 s each in these tests).
    await waitUntil(() => thumbnails.videoPackets() > 0, 'the camera woken', 10_000);
    const wokenAt = thumbnails.videoPackets();
    await waitUntil(
      () => thumbnails.videoPackets() >= wokenAt + 45,
      'three seconds of the camera (15 fps)',
      10_000,
    );
    expect(running.stage.stats().stages.N743AS?.camera.state).toBe('live');
    expect(segments).toEqual([]);
    expect(await readSpans(root, 'N743AS')).toEqual([]);

    const person = await watchAs('user-1');
    await waitUntil(() => segments.length >= 2, 'two segments of the person’s watch', 15_000);
    await person.close();
    // The thumbnail process still watches: the camera still draws, the recorder writes no more.
    const spans = await readSpans(root, 'N743AS');
    expect(spans).toHaveLength(1);
    await waitUntil(() => everySegmentFinished(spans[0]?.dir ?? ''), 'the last segment finished');
    const written = segments.length;
    const before = thumbnails.videoPackets();
    await waitUntil(
      () => thumbnails.videoPackets() >= before + 30,
      'two more seconds of the camera',
      10_000,
    );
    expect(segments).toHaveLength(written);
    expect(await readSpans(root, 'N743AS')).toHaveLength(1);
  }, 60_000);

  it.skipIf(!hasFfmpeg)(
    'keeps each segment’s first key frame as a JPEG 160 px wide beside it, in the index after it',
    async () => {
      const before = segments.length;
      const skippedBefore = recorder.previewCounts?.skipped ?? 0;
      const person = await watchAs('user-1');
      await waitUntil(() => segments.length >= before + 2, 'two more segments', 15_000);
      await person.close();
      const span = (await readSpans(root, 'N743AS')).at(-1);
      const dir = span?.dir ?? '';
      // The last preview is written once its decode is done, after the segment. The newest key
      // frame that comes while its aircraft's decode runs waits for it; an older one waiting gets
      // none (skipped).
      let stored: StoredSegment[] = [];
      await waitUntil(
        async () => {
          stored = (await readSpans(root, 'N743AS')).at(-1)?.segments ?? [];
          const without = stored.filter((segment) => segment.preview === undefined);
          // A failed decode ends the wait too: the assertion below then names it.
          if ((recorder.previewCounts?.failures ?? 0) > 0) return true;
          return without.length <= (recorder.previewCounts?.skipped ?? 0) - skippedBefore;
        },
        'the previews written',
        // Two decodes at niceness 10 (the one running, the newest waiting) on a busy machine: a
        // fresh clone's run beside other work once took more than 5 s.
        15_000,
        50,
      );
      expect(recorder.previewCounts).toMatchObject({ failures: 0 });
      const previewed = stored.filter((segment) => segment.preview !== undefined);
      expect(previewed.length).toBeGreaterThanOrEqual(2);
      for (const segment of previewed) {
        expect(segment.preview).toBe(previewFileName(segment.name));
        const jpeg = readFileSync(join(dir, segment.preview ?? ''));
        // A whole JPEG: its start and end markers, a few kB.
        expect([...jpeg.subarray(0, 2)]).toEqual([0xff, 0xd8]);
        expect([...jpeg.subarray(-2)]).toEqual([0xff, 0xd9]);
        expect(jpeg.length).toBeLessThan(20_000);
        const picture = await loadImage(jpeg);
        // The camera's 320x180, its aspect kept.
        expect({ width: picture.width, height: picture.height }).toEqual({
          width: 160,
          height: 90,
        });
      }
      // The index lists each preview after its segment.
      const lines = readFileSync(join(dir, SEGMENT_INDEX_FILE), 'utf8').trimEnd().split('\n');
      const order = lines.map((line) => parseSegmentIndexLine(line)?.name);
      for (const segment of previewed) {
        expect(order.indexOf(segment.preview)).toBeGreaterThan(order.indexOf(segment.name));
      }
    },
    40_000,
  );

  it('records a real encoder with nobody watching it', async () => {
    const encoder = await publishNoiseOn({
      secret,
      stageUrl: running.url,
      stageId: 'N743AS',
      width: 320,
      height: 180,
      fps: 15,
    });
    try {
      const before = segments.length;
      await waitUntil(
        () => recorder.recording().N743AS === 'encoder',
        'the encoder followed',
        15_000,
      );
      expect(running.stage.watchedByPerson().N743AS).toBe(false);
      await waitUntil(() => segments.length >= before + 2, 'two segments of the encoder', 15_000);
      const spans = await readSpans(root, 'N743AS');
      expect(spans.at(-1)?.meta?.publisher).toBe('encoder');
    } finally {
      await encoder.close();
    }
  }, 40_000);
});
