import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ffmpegCommand } from './decode-key-frame';
import {
  InBandQueue,
  InBandRateRules,
  IVS_SEI_UUID,
  readSeiMessages,
  takeTrailer,
  trailer,
  withSeiMessages,
  type InBandMessage,
} from './in-band';

const bytes = (...values: number[]) => Uint8Array.from(values);
const hex = (data: Uint8Array) => Buffer.from(data).toString('hex');
const message = (payload: Uint8Array): InBandMessage => ({ uuid: IVS_SEI_UUID, payload });

/** A few H.264 frames from FFmpeg's own encoder (libx264), one access unit a frame (AUDs). */
function x264Frames(): Uint8Array[] | undefined {
  const result = spawnSync(
    ffmpegCommand(),
    [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi'],
      ...['-i', 'testsrc=size=160x90:rate=10', '-frames:v', '3', '-c:v', 'libx264'],
      ...['-x264-params', 'aud=1', '-f', 'h264', '-'],
    ],
    { maxBuffer: 1 << 24 },
  );
  if (result.status !== 0) return undefined;
  const stream = new Uint8Array(result.stdout);
  // Each access unit begins with its delimiter (00 00 00 01 09).
  const starts: number[] = [];
  for (let index = 0; index + 4 < stream.length; index += 1) {
    if (stream[index] === 0 && stream[index + 1] === 0 && stream[index + 2] === 0) {
      if (stream[index + 3] === 1 && ((stream[index + 4] ?? 0) & 0x1f) === 9) starts.push(index);
    }
  }
  return starts.map((start, index) => stream.subarray(start, starts[index + 1] ?? stream.length));
}

describe('H.264 SEI user_data_unregistered', () => {
  it('round-trips payloads that need emulation prevention and sizes over 255', () => {
    const payloads = [
      bytes(1, 2, 3),
      bytes(0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0),
      Uint8Array.from({ length: 600 }, (_, index) => (index % 7 === 0 ? 0 : index % 256)),
    ];
    const frame = bytes(0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00);
    const carried = withSeiMessages(frame, payloads.map(message));
    // The slice is still whole and last; no 00 00 0x (x ≤ 3) inside the SEI units.
    expect(hex(carried.subarray(carried.length - frame.length))).toBe(hex(frame));
    const read = readSeiMessages(carried);
    expect(read.map((each) => hex(each.payload))).toEqual(payloads.map(hex));
    expect(read.every((each) => hex(each.uuid) === hex(IVS_SEI_UUID))).toBe(true);
  });

  it('reads the SEI another encoder wrote, and FFmpeg reads ours with its UUID and payload', () => {
    const frames = x264Frames();
    if (!frames) {
      console.warn(
        'SKIPPED: FFmpeg with libx264 is not installed (Debian: apt-get install ffmpeg)',
      );
      return;
    }
    // x264 writes its version and options as user_data_unregistered in the first frame.
    const own = readSeiMessages(frames[0] ?? new Uint8Array());
    expect(own.map((each) => hex(each.uuid))).toContain('dc45e9bde6d948b7962cd820d923eeef');
    expect(Buffer.from(own[0]?.payload ?? []).toString('latin1')).toMatch(/^x264 - core/);

    const ours = frames.map((frame, index) =>
      withSeiMessages(frame, [message(bytes(0xca, 0xfe, 0, 0, 1, index))]),
    );
    const result = spawnSync(
      ffmpegCommand(),
      ['-hide_banner', '-f', 'h264', '-i', '-', '-vf', 'showinfo', '-f', 'null', '-'],
      { input: Buffer.concat(ours), encoding: 'utf8' },
    );
    expect(result.status).toBe(0);
    const uuids = [...result.stderr.matchAll(/UUID=([0-9a-f-]+)/g)].map((match) => match[1]);
    expect(uuids.filter((uuid) => uuid === '9e504ea5-ee5a-4f02-949f-b033a3768da2')).toHaveLength(3);
    const data = [...result.stderr.matchAll(/User Data=([0-9a-f]+)/g)].map((match) => match[1]);
    expect(data).toEqual(expect.arrayContaining(['cafe00000100', 'cafe00000101', 'cafe00000102']));
  });

  it('reads nothing from a frame without SEI, or from one cut short', () => {
    expect(readSeiMessages(bytes(0, 0, 0, 1, 0x65, 1, 2, 3))).toEqual([]);
    const carried = withSeiMessages(bytes(0, 0, 0, 1, 0x65, 1), [message(bytes(9, 9, 9))]);
    expect(readSeiMessages(carried.subarray(0, 12))).toEqual([]);
  });
});

describe('the VP8 trailer', () => {
  it('carries messages after the frame and comes off whole', () => {
    const frame = bytes(0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 7, 7);
    const messages = [message(bytes(1, 2, 3)), message(new Uint8Array(700).fill(5))];
    const carried = new Uint8Array([...frame, ...trailer(messages)]);
    const taken = takeTrailer(carried);
    expect(hex(taken.frame)).toBe(hex(frame));
    expect(taken.messages.map((each) => hex(each.payload))).toEqual(
      messages.map((each) => hex(each.payload)),
    );
  });

  it('leaves a frame without one, or with a broken one, as it is', () => {
    const frame = bytes(0x50, 0x42, 0x00, 0x54, 0x43, 0x49, 0x42);
    expect(takeTrailer(frame)).toEqual({ frame, messages: [] });
    const carried = new Uint8Array([...bytes(1, 2), ...trailer([message(bytes(1))])]);
    carried[2] = 0xff; // the message's length now overruns the trailer
    expect(takeTrailer(carried).messages).toEqual([]);
    expect(takeTrailer(carried).frame).toBe(carried);
  });
});

describe("the publisher's rules (IVS's)", () => {
  it('refuses an empty or oversized payload and a repeat count outside 0–30', () => {
    const rules = new InBandRateRules(30, () => 0);
    expect(rules.check(0, 0)).toBe('PAYLOAD_SIZE_INVALID');
    expect(rules.check(1_025, 0)).toBe('PAYLOAD_SIZE_INVALID');
    expect(rules.check(10, -1)).toBe('INVALID_REPEAT_COUNT');
    expect(rules.check(10, 31)).toBe('INVALID_REPEAT_COUNT');
    expect(rules.check(10, 1.5)).toBe('INVALID_REPEAT_COUNT');
    expect(rules.check(1_024, 30)).toBe('PAYLOAD_RATE_EXCEEDED');
    expect(rules.check(1_024, 9)).toBeUndefined();
  });

  it('allows 10,240 bytes a second, counting what went in the last second', () => {
    let now = 0;
    const rules = new InBandRateRules(30, () => now);
    for (let index = 0; index < 10; index += 1) expect(rules.check(1_024, 0)).toBeUndefined();
    expect(rules.check(1, 0)).toBe('PAYLOAD_RATE_EXCEEDED');
    now = 1_001;
    expect(rules.check(1_024, 0)).toBeUndefined();
  });

  it('puts a message on the next frame and on as many after as it repeats', () => {
    const queue = new InBandQueue();
    queue.add(message(bytes(1)), 2);
    queue.add(message(bytes(2)), 0);
    expect(queue.next().map((each) => each.payload[0])).toEqual([1, 2]);
    expect(queue.next().map((each) => each.payload[0])).toEqual([1]);
    expect(queue.next().map((each) => each.payload[0])).toEqual([1]);
    expect(queue.next()).toEqual([]);
  });
});
