/**
 * The recorder against the stage with its synthetic camera publishing N743AS (VP8, simulcast):
 * it subscribes over WHEP as the recorder, is counted as no viewer (the camera stays idle and
 * nothing is written while nobody watches), and once a person watches it writes segments that
 * mediabunny's demuxer (third-party) reads back: each starts on a key frame, holds VP8 at the
 * camera's size, and lasts what its name says. Stopping finishes the segment being written.
 * While nobody comes or goes on air it asks the stage nothing new (its question is held), and a
 * camera that leaves and comes back is followed at once. The camera's flight data comes to the
 * recorder's session (and only there) as the VP8 trailer, and is kept beside each segment, each
 * sample at its frame (decision 0096).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readSpans } from '@tailcam/protocol/recordings-store';
import { flightFileName } from '@tailcam/protocol/recordings';
import { readFlightRecords } from '@tailcam/protocol/flight-data/recorded';
import { decodeFlightData } from '@tailcam/protocol/flight-data/klv';
import { NodeViewer } from '../testing/node-viewer';
import { readSegment } from '../testing/read-segment';
import { testParticipantToken } from '../testing/participant-tokens';
import type { StageWithCameras } from '../testing/stage-with-cameras';
import { waitUntil } from '../testing/wait-until';
import { createStageLogger } from '../stage-log';
import { Recorder } from './recorder';
import { startRecordingStage, type RecordingStage } from '../testing/test-recorder';

const secret = new TextEncoder().encode('a-recorder-test-secret-of-enough-length!!');
let running: StageWithCameras;
let root: string;
let recorder: Recorder;
let setup: RecordingStage | undefined;
const segments: { path: string; durationMs: number }[] = [];

beforeAll(async () => {
  setup = await startRecordingStage(
    {
      faultsEnabled: false,
      syntheticCameras: ['N743AS'],
      camera: { width: 320, height: 180, fps: 15, idleMs: 0, simulcast: false },
    },
    {
      secret,
      prefix: 'tailcam-recorder-test-',
      ...(process.env.REC_DEBUG ? { log: createStageLogger({ level: 'debug' }) } : {}),
      onSegment: (_stageId, path, durationMs) => segments.push({ path, durationMs }),
    },
  );
  ({ running, root, recorder } = setup);
}, 30_000);

afterAll(() => setup?.close());

describe('the recorder', () => {
  it('is no viewer: subscribed to the idle camera, nothing is encoded or written', async () => {
    await waitUntil(() => recorder.recording().N743AS === 'camera', 'recording N743AS', 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(running.stage.stats()).toMatchObject({ whepSessions: 1 });
    expect(segments).toEqual([]);
    expect(await readSpans(root)).toEqual([]);
  });

  it('records while a person watches, in whole VP8 WebM segments that start on a key frame', async () => {
    const viewer = new NodeViewer(`${running.url.replace('http', 'ws')}/stage/events`);
    await viewer.join(
      await testParticipantToken({ secret, stageUrl: running.url, stageId: 'N743AS' }),
    );
    await viewer.subscribe();
    await waitUntil(() => segments.length >= 3, 'three segments', 20_000);
    viewer.close();

    const spans = await readSpans(root, 'N743AS');
    expect(spans).toHaveLength(1);
    expect(spans[0]?.meta).toEqual({ container: 'webm', codecs: 'vp8,opus', publisher: 'camera' });
    const stored = spans[0]?.segments ?? [];
    expect(stored.length).toBeGreaterThanOrEqual(3);
    for (const [index, segment] of stored.entries()) {
      const read = await readSegment(join(spans[0]?.dir ?? '', segment.name));
      expect(read).toMatchObject({
        mime: expect.stringContaining('video/webm'),
        codec: 'vp8',
        audioCodec: 'opus',
      });
      // The sound covers the picture (silence where nobody listened), or playback would stop.
      expect(read.audioDurationS * 1000).toBeGreaterThanOrEqual(segment.durationMs - 1);
      expect({ width: read.width, height: read.height }).toEqual({ width: 320, height: 180 });
      expect(read.types[0]).toBe('key');
      // About a second each (cut at the first key frame after 1 s), as the name says: its last
      // frame starts within a frame interval or two (15 fps) of its end.
      expect(read.lastFrameS * 1000).toBeGreaterThan(segment.durationMs - 150);
      // (Up to one Opus frame past the name: 4 ms once, in a loaded fresh-clone run, not explained.)
      expect(read.lastFrameS * 1000).toBeLessThanOrEqual(segment.durationMs + 20);
      expect(segment.durationMs).toBeGreaterThan(900);
      expect(segment.durationMs).toBeLessThan(3_500);
      // Abutting: each starts where the one before ended (the media clock, no gaps).
      const next = stored[index + 1];
      if (next)
        expect(Math.abs(next.offsetMs - (segment.offsetMs + segment.durationMs))).toBeLessThan(5);
      // Its flight data: from its first frame on (a key frame carries the newest sample), each
      // N743AS's 0601 packet, within the segment, captured about when its frame was.
      const flight = readFlightRecords(
        readFileSync(join(spans[0]?.dir ?? '', flightFileName(segment.offsetMs))),
      );
      expect(flight[0]?.timeMs).toBe(0);
      for (const record of flight) {
        expect(record.timeMs).toBeLessThanOrEqual(segment.durationMs);
        const packet = decodeFlightData(record.payload);
        expect(packet.ok && packet.telemetry.tailNumber).toBe('N743AS');
        const frameWallMs = (spans[0]?.startMs ?? 0) + segment.offsetMs + record.timeMs;
        const capturedMs = packet.ok ? (packet.telemetry.captureTimeMs ?? 0) : 0;
        // A sample rides the first frame captured at or after it; a key frame's, up to 3 s later.
        expect(frameWallMs - capturedMs).toBeGreaterThan(-1_000);
        expect(frameWallMs - capturedMs).toBeLessThan(4_000);
      }
    }
    // Nothing unfinished is left behind once the viewer left and the camera idles again.
    await waitUntil(
      () => readdirSync(spans[0]?.dir ?? '').every((name) => !name.endsWith('.part')),
      'the last segment finished',
      10_000,
    );
  }, 40_000);

  it('asks who is on air only when it changes, and follows a change at once', async () => {
    const health = vi.spyOn(running.stage, 'health');
    try {
      // Every 200 ms (pollMs) when each question was answered at once: now the stage holds it.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(health.mock.calls.length).toBeLessThanOrEqual(1);
      running.stage.faults.stopCamera('N743AS');
      await waitUntil(() => recorder.recording().N743AS === undefined, 'recording ended', 5_000);
      running.stage.faults.startCamera('N743AS');
      await waitUntil(() => recorder.recording().N743AS === 'camera', 'recording again', 15_000);
    } finally {
      health.mockRestore();
    }
  }, 30_000);
});
