/**
 * The segment being written is read while it grows (decision 0085): a reader of the `.part`
 * finds each frame's bytes soon after the frame came, and what it read at any moment is where
 * the finished file begins (the recorder only appends). Frames come in real time, 30 fps video
 * and 20 ms Opus, each video frame carrying a marker the reader looks for; the time from a frame's
 * hand-over to the recorder to its marker in the file is how far behind the newest frame the
 * served bytes are (docs/benchmarks/recordings.md). MP4 is written a fragment each 100 ms
 * (fmp4-fragments.ts); WebM as mediabunny muxes each frame.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_FORMATS, BufferSource, EncodedPacketSink, Input } from 'mediabunny';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SEGMENT_INDEX_FILE } from '@tailcam/protocol/recordings';
import { silentLogger } from '../stage-log';
import { SpanWriter } from './span-writer';

const VP8_KEY = Buffer.from([0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00]);
const VP8_DELTA = Buffer.from([0x51, 0x02, 0x00]);
/** GStreamer's x264 SPS (320x240 baseline) and a PPS, as Annex B. */
const START = Buffer.from([0, 0, 0, 1]);
const SPS = Buffer.from('Z0LADNoFB+wFqDAwNSgAAAMACAAAAwD0eKFV', 'base64');
const PPS = Buffer.from([0x68, 0xce, 0x3c, 0x80]);
const H264_KEY = Buffer.concat([START, SPS, START, PPS, START, Buffer.from([0x65, 0x88])]);
const H264_DELTA = Buffer.concat([START, Buffer.from([0x41, 0x9a])]);
const OPUS_20 = Buffer.from([0xf8, 0x11, 0x22, 0x33]);
const FRAME_MS = 1000 / 30;
/**
 * Segments of 2 s (the recorder's are 4 s; what is read while it grows is the same), a key frame
 * each second, as an encoder asked for one by the cut would send. The frames go on half a second
 * past the cut, whose key frame finishes the first segment.
 */
const KEY_EVERY = 30;
const SEGMENT_MS = 2_000;
const RUN_MS = SEGMENT_MS + 500;

function marker(index: number): Buffer {
  return Buffer.from(`<frame ${String(index).padStart(5, '0')}>`, 'latin1');
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The video frames' times (ms) and sizes (or key flags) as mediabunny's demuxer reads them. */
async function videoFrames(file: Buffer, keys = false): Promise<string[]> {
  const input = new Input({ source: new BufferSource(file), formats: ALL_FORMATS });
  const track = await input.getPrimaryVideoTrack();
  if (!track) throw new Error('no video');
  const frames: string[] = [];
  for await (const packet of new EncodedPacketSink(track).packets()) {
    const what = keys ? packet.type : packet.data.length;
    frames.push(`${Math.round(packet.timestamp * 1000)}:${what}`);
  }
  return frames;
}

/** Where the audio ends and its widest gap (ms), each packet as long as its duration says. */
async function audioCoverage(file: Buffer): Promise<{ endMs: number; widestGapMs: number }> {
  const input = new Input({ source: new BufferSource(file), formats: ALL_FORMATS });
  const track = await input.getPrimaryAudioTrack();
  if (!track) throw new Error('no audio');
  let endMs = 0;
  let widestGapMs = 0;
  for await (const packet of new EncodedPacketSink(track).packets()) {
    widestGapMs = Math.max(widestGapMs, packet.timestamp * 1000 - endMs);
    endMs = Math.max(endMs, (packet.timestamp + packet.duration) * 1000);
  }
  return { endMs, widestGapMs };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

/**
 * Feeds `video` frames for RUN_MS in real time while reading the first segment's `.part` every
 * few ms; returns each frame's delay to the file, what was read at moments, and the finished file.
 */
async function recordWhileReading(video: 'vp8' | 'h264') {
  dir = mkdtempSync(join(tmpdir(), 'tailcam-growing-'));
  const writer = new SpanWriter({
    stageDir: dir,
    video,
    audio: true,
    publisher: 'encoder',
    segmentMs: SEGMENT_MS,
    requestKeyFrame: () => undefined,
    mayStartSegment: () => true,
    log: silentLogger(),
  });
  const started = performance.now();
  const handedAt = new Map<number, number>();
  const seenAt = new Map<number, number>();
  const snapshots: Buffer[] = [];
  let frameIndex = 0;
  let audioIndex = 0;
  // The first segment's `.part` (its offset is where the span's clock placed the first frame).
  let partName: string | undefined;
  const look = () => {
    let bytes: Buffer;
    try {
      partName ??= readdirSync(writer.dir).find((name) => name.endsWith('.part'));
      if (!partName) return;
      bytes = readFileSync(join(writer.dir, partName));
    } catch {
      return; // not begun, or renamed
    }
    const now = performance.now();
    if (snapshots.length === 0 || bytes.length > (snapshots.at(-1)?.length ?? 0) + 8_000) {
      snapshots.push(bytes);
    }
    for (const [index] of handedAt) {
      if (!seenAt.has(index) && bytes.includes(marker(index))) seenAt.set(index, now);
    }
  };
  const reader = setInterval(look, 2);
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const elapsed = performance.now() - started;
      while (audioIndex * 20 <= elapsed) {
        writer.audio({ data: OPUS_20, keyFrame: true, timeMs: audioIndex * 20 });
        audioIndex += 1;
      }
      while (frameIndex * FRAME_MS <= elapsed) {
        const key = frameIndex % KEY_EVERY === 0;
        const head = video === 'vp8' ? (key ? VP8_KEY : VP8_DELTA) : key ? H264_KEY : H264_DELTA;
        const data = Buffer.concat([head, Buffer.alloc(600, 0x55), marker(frameIndex)]);
        // Only the first segment's frames are timed: the reader reads its file.
        if (frameIndex * FRAME_MS < SEGMENT_MS - 100) handedAt.set(frameIndex, performance.now());
        writer.video({ data, keyFrame: key, timeMs: frameIndex * FRAME_MS });
        frameIndex += 1;
      }
      if (elapsed >= RUN_MS) {
        clearInterval(tick);
        resolve();
      }
    }, 5);
  });
  clearInterval(reader);
  // The first segment finished at the cut: its `.part` is kept as `.grown` until the span ends
  // (or for seconds).
  await vi.waitFor(
    () => {
      if (!readdirSync(writer.dir).some((name) => name.endsWith('.grown') || name.endsWith('.mp4')))
        throw new Error('the first segment has not finished');
    },
    { timeout: 5_000 },
  );
  const grown =
    partName && readdirSync(writer.dir).includes(partName.replace('.part', '.grown'))
      ? readFileSync(join(writer.dir, partName.replace('.part', '.grown')))
      : undefined;
  await writer.close();
  const finishedName = readdirSync(writer.dir).find(
    (name) => partName !== undefined && name.startsWith(`${partName.slice(0, -'.part'.length)}-`),
  );
  if (!finishedName || !partName) throw new Error('the first segment was not finished');
  // The bytes a reader of the `.part` ends with: for WebM the `.part` kept as `.grown` after its
  // segment finished (the finished file is muxed apart, its sizes known); for MP4 the finished
  // file, which the `.part` became.
  const finished = video === 'vp8' ? grown : readFileSync(join(writer.dir, finishedName));
  if (!finished) throw new Error('no .grown copy of the finished WebM segment');
  const finishedFile = readFileSync(join(writer.dir, finishedName));
  const delays = [...handedAt]
    .filter(([index]) => seenAt.has(index))
    .map(([index, at]) => (seenAt.get(index) ?? at) - at)
    .sort((a, b) => a - b);
  return { writer, partName, handed: handedAt.size, delays, snapshots, finished, finishedFile };
}

describe('the segment being written', () => {
  it('WebM: each frame is in the file within a fraction of a second, and what was read stays the file’s beginning', async () => {
    const { writer, partName, handed, delays, snapshots, finished, finishedFile } =
      await recordWhileReading('vp8');
    const median = percentile(delays, 0.5);
    const p95 = percentile(delays, 0.95);
    console.info(
      `WebM: frame to file over ${delays.length} frames: median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${delays.at(-1)?.toFixed(1)} ms`,
    );
    // Every frame of the first segment but the last few (held for their duration, then the cut)
    // was seen in the `.part` before it was renamed.
    expect(delays.length).toBeGreaterThan(handed - 10);
    expect(median).toBeLessThan(250);
    expect(p95).toBeLessThan(1000);
    expect(snapshots.length).toBeGreaterThan(3);
    for (const snapshot of snapshots) {
      expect(finished.subarray(0, snapshot.length).equals(snapshot)).toBe(true);
    }
    // The finished file carries the same frames, in Clusters of known size (Firefox's MSE).
    expect(await videoFrames(finishedFile)).toEqual(await videoFrames(finished));
    expect(finishedFile.includes(Buffer.from([0x1f, 0x43, 0xb6, 0x75, 0xff]))).toBe(false);
    expect(finished.includes(Buffer.from([0x1f, 0x43, 0xb6, 0x75, 0xff]))).toBe(true);
    // The index said it was being written before it said it was finished.
    const index = readFileSync(join(writer.dir, SEGMENT_INDEX_FILE), 'utf8');
    const offset = partName?.slice(0, -'.part'.length);
    expect(index.indexOf(`*${offset}.part`)).toBeGreaterThanOrEqual(0);
    expect(index.indexOf(`*${offset}.part`)).toBeLessThan(index.indexOf(`+${offset}-`));
  });

  it('fragmented MP4: a fragment each 100 ms of video, key frame or not, and what was read stays the file’s beginning', async () => {
    const { handed, delays, snapshots, finished } = await recordWhileReading('h264');
    const median = percentile(delays, 0.5);
    const p95 = percentile(delays, 0.95);
    console.info(
      `MP4: frame to file over ${delays.length} frames: median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${delays.at(-1)?.toFixed(1)} ms`,
    );
    expect(delays.length).toBeGreaterThan(handed - 10);
    expect(median).toBeLessThan(250);
    expect(p95).toBeLessThan(1000);
    // The segment (cut at the key frame at 2 s) read back whole: its 60 frames from 0, the key
    // frames where they were.
    const frames = await videoFrames(finished, true);
    expect(frames).toHaveLength(60);
    expect(frames.filter((frame) => frame.endsWith('key'))).toEqual(['0:key', '1000:key']);
    // Its sound without a hole (a browser stops at one: decision 0075), to the picture's end.
    const sound = await audioCoverage(finished);
    expect(sound.widestGapMs).toBeLessThanOrEqual(2.5);
    expect(sound.endMs).toBeGreaterThanOrEqual(SEGMENT_MS - 2.5);
    expect(snapshots.length).toBeGreaterThan(3);
    for (const snapshot of snapshots) {
      expect(finished.subarray(0, snapshot.length).equals(snapshot)).toBe(true);
    }
  });
});
