/**
 * A recording keeps its flight data with its frames (decision 0096): a VP8 frame that came with
 * the stage's trailer is written without it (ffmpeg decodes the segment without an error, every
 * frame), and its messages go to the segment's `{offset}.flight` at the frame's media time, each
 * once however often it was repeated; an H.264 frame's SEI stays in the fMP4 sample and its
 * messages are recorded the same way. Real frames from ffmpeg's encoders (libvpx, libx264).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFlightRecords } from '@tailcam/protocol/flight-data/recorded';
import { flightDataAt } from '@tailcam/protocol/flight-data/flight';
import { decodeFlightData } from '@tailcam/protocol/flight-data/klv';
import { IVS_SEI_UUID, takeTrailer, trailer, withSeiMessages } from '../codecs/in-band';
import { ffmpegCommand } from '../codecs/decode-key-frame';
import { silentLogger } from '../stage-log';
import { removeLeftoverParts } from './recorder';
import { SpanWriter } from './span-writer';

const ffmpeg = ffmpegCommand();
const hasFfmpeg = spawnSync(ffmpeg, ['-version']).status === 0;
const T0 = Date.UTC(2026, 10, 29, 13, 30);

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function encode(args: string[]): Buffer {
  const result = spawnSync(
    ffmpeg,
    [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi'],
      ...['-i', 'testsrc=size=160x90:rate=10', ...args],
    ],
    { maxBuffer: 1 << 24 },
  );
  if (result.status !== 0) throw new Error(result.stderr.toString());
  return result.stdout;
}

/** `count` VP8 frames (libvpx, a key frame every 5), out of their IVF file. */
function vp8Frames(count: number): Buffer[] {
  const ivf = encode(['-frames:v', String(count), '-c:v', 'libvpx', '-g', '5', '-f', 'ivf', '-']);
  const frames: Buffer[] = [];
  for (let at = 32; at + 12 <= ivf.length;) {
    const size = ivf.readUInt32LE(at);
    frames.push(ivf.subarray(at + 12, at + 12 + size));
    at += 12 + size;
  }
  return frames;
}

/** One H.264 key frame (libx264), Annex B. */
function h264KeyFrame(): Buffer {
  return encode(['-frames:v', '1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-f', 'h264', '-']);
}

function writer(stageDir: string, video: 'vp8' | 'h264') {
  let clock = 5_000_000;
  const span = new SpanWriter({
    stageDir,
    video,
    audio: false,
    publisher: video === 'vp8' ? 'camera' : 'encoder',
    segmentMs: 60_000,
    requestKeyFrame: () => undefined,
    mayStartSegment: () => true,
    log: silentLogger(),
    now: () => clock,
  });
  return { span, setClock: (ms: number) => void (clock = 5_000_000 + ms) };
}

/** The only span's files: its directory and names. */
function spanFiles(stageDir: string): { spanDir: string; names: string[] } {
  const [spanName] = readdirSync(stageDir);
  const spanDir = join(stageDir, spanName ?? '');
  return { spanDir, names: readdirSync(spanDir).sort() };
}

const sample = (ms: number) => flightDataAt('N953AS', T0 + ms);

describe.skipIf(!hasFfmpeg)("a recording's flight data", () => {
  it('takes the VP8 trailer off each frame (the WebM decodes) and keeps each message at its frame', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailcam-flight-'));
    const { span, setClock } = writer(dir, 'vp8');
    const frames = vp8Frames(10);
    // A sample on frame 0 (repeated on 1 and 2, as IVS repeats), another on frame 6 (and 7), at
    // 100 ms a frame.
    const carried = new Map([
      [0, [sample(0)]],
      [1, [sample(0)]],
      [2, [sample(0)]],
      [6, [sample(600)]],
      [7, [sample(600)]],
    ]);
    frames.forEach((frame, index) => {
      setClock(index * 100);
      const messages = (carried.get(index) ?? []).map((payload) => ({
        uuid: IVS_SEI_UUID,
        payload,
      }));
      const data = messages.length > 0 ? Buffer.concat([frame, trailer(messages)]) : frame;
      span.video({ data, keyFrame: index % 5 === 0, timeMs: index * 100 });
    });
    await span.close();

    const { spanDir, names } = spanFiles(dir);
    const webm = names.find((name) => name.endsWith('.webm'));
    expect(webm).toMatch(/^0000000000-\d+\.webm$/);
    expect(names).toContain('0000000000.flight');
    // Its owner's only, as the segment is.
    expect(statSync(join(spanDir, '0000000000.flight')).mode & 0o777).toBe(0o600);

    // The file holds the frames as published: not one byte of a trailer, and ffmpeg decodes it.
    const file = readFileSync(join(spanDir, webm ?? ''));
    expect(file.includes(Buffer.from('TCIB'))).toBe(false);
    expect(takeTrailer(frames[0] ?? Buffer.alloc(0)).messages).toEqual([]);
    const decoded = spawnSync(
      ffmpeg,
      ['-v', 'error', '-i', join(spanDir, webm ?? ''), '-f', 'framemd5', '-'],
      { encoding: 'utf8' },
    );
    expect(decoded.status).toBe(0);
    expect(decoded.stderr).toBe('');
    expect(decoded.stdout.split('\n').filter((line) => /^\s*0,/.test(line))).toHaveLength(10);

    // Each sample once, at its frame's media time in the segment, as it came.
    const records = readFlightRecords(readFileSync(join(spanDir, '0000000000.flight')));
    expect(records.map((record) => record.timeMs)).toEqual([0, 600]);
    expect(records.map((record) => Buffer.from(record.uuid).equals(IVS_SEI_UUID))).toEqual([
      true,
      true,
    ]);
    const times = records.map((record) => {
      const packet = decodeFlightData(record.payload);
      return packet.ok ? packet.telemetry.captureTimeMs : undefined;
    });
    expect(times).toEqual([T0, T0 + 600]);
  });

  it('leaves the SEI in the H.264 sample and records its messages', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailcam-flight-'));
    const { span } = writer(dir, 'h264');
    const payload = sample(0);
    const frame = withSeiMessages(h264KeyFrame(), [{ uuid: IVS_SEI_UUID, payload }]);
    span.video({ data: Buffer.from(frame), keyFrame: true, timeMs: 0 });
    await span.close();

    const { spanDir, names } = spanFiles(dir);
    const mp4 = names.find((name) => name.endsWith('.mp4'));
    expect(mp4).toBeDefined();
    // The sample keeps its SEI NAL unit (the payload in it is escaped: its UUID is not).
    expect(readFileSync(join(spanDir, mp4 ?? '')).includes(Buffer.from(IVS_SEI_UUID))).toBe(true);
    // Every user_data_unregistered message, whoever wrote it (x264 writes its own, of its UUID).
    const records = readFlightRecords(readFileSync(join(spanDir, '0000000000.flight'))).filter(
      (record) => Buffer.from(record.uuid).equals(IVS_SEI_UUID),
    );
    expect(records).toHaveLength(1);
    expect(records[0]?.timeMs).toBe(0);
    expect(Buffer.from(records[0]?.payload ?? []).equals(Buffer.from(payload))).toBe(true);
  });

  it('writes no flight data for a segment whose frames carried none', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailcam-flight-'));
    const { span, setClock } = writer(dir, 'vp8');
    vp8Frames(3).forEach((frame, index) => {
      setClock(index * 100);
      span.video({ data: frame, keyFrame: index === 0, timeMs: index * 100 });
    });
    await span.close();
    expect(spanFiles(dir).names.some((name) => name.endsWith('.flight'))).toBe(false);
  });
});

describe('a killed recorder', () => {
  it("leaves no flight data whose segment is gone; a finished segment's stays", async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailcam-flight-'));
    const spanDir = join(dir, 'N953AS', '1700000000000');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(spanDir, { recursive: true });
    for (const name of [
      '0000000000-2000.webm',
      '0000000000.flight',
      '0000002000.part',
      '0000002000.flight',
    ]) {
      writeFileSync(join(spanDir, name), 'x');
    }
    expect(removeLeftoverParts(dir)).toBe(2);
    expect(readdirSync(spanDir).sort()).toEqual(['0000000000-2000.webm', '0000000000.flight']);
  });
});
