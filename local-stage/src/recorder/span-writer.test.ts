/**
 * What a segment leaves a browser to buffer (decision 0075): Chromium's Media Source Extensions
 * stop at any hole in what every track covers. A video frame the encoder held longer than a frame
 * interval must not leave one (no WebM DefaultDuration, which a browser takes as every frame's
 * length), and audio with a pause (DTX, a lost packet) must be covered: each Opus packet lasts
 * what its TOC says and silence fills the rest, to within 2.5 ms. Read back by mediabunny's
 * demuxer and from the file's bytes.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_FORMATS, EncodedPacketSink, FilePathSource, Input } from 'mediabunny';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSegmentIndexLine, SEGMENT_INDEX_FILE } from '@tailcam/protocol/recordings';
import { silentLogger } from '../stage-log';
import { opusPacketDurationMs } from '../codecs/opus';
import { SpanWriter } from './span-writer';

/** A VP8 key frame's first bytes for 320x180 (RFC 6386 9.1), then a body. */
const KEY = Buffer.from([0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00, 1, 2, 3]);
const DELTA = Buffer.from([0x51, 0x02, 0x00, 0xaa, 4, 5]);
/** An Opus packet of one 20 ms CELT frame (TOC 0xF8), and one of two 10 ms frames (0xF1). */
const OPUS_20 = Buffer.from([0xf8, 0x11, 0x22, 0x33]);
const OPUS_2X10 = Buffer.from([0xf1, 0x11, 0x22, 0x33]);
/** WebM's DefaultDuration element ID (0x23E383). */
const DEFAULT_DURATION_ID = Buffer.from([0x23, 0xe3, 0x83]);

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A VP8 span writer into `stageDir` on a clock the test sets (ms from its start). */
function writerOnClock(stageDir: string, options: { audio: boolean; segmentMs: number }) {
  let clock = 1_000_000;
  const writer = new SpanWriter({
    stageDir,
    video: 'vp8',
    audio: options.audio,
    publisher: 'camera',
    segmentMs: options.segmentMs,
    requestKeyFrame: () => undefined,
    mayStartSegment: () => true,
    log: silentLogger(),
    now: () => clock,
  });
  return { writer, setClock: (ms: number) => void (clock = 1_000_000 + ms) };
}

describe('opusPacketDurationMs', () => {
  it('reads the TOC: frame size times frame count', () => {
    expect(opusPacketDurationMs(OPUS_20)).toBe(20);
    expect(opusPacketDurationMs(OPUS_2X10)).toBe(20);
    expect(opusPacketDurationMs(Buffer.from([0x08]))).toBe(20); // SILK NB 20 ms
    expect(opusPacketDurationMs(Buffer.from([0x1b, 0x03]))).toBe(180); // SILK 60 ms, 3 frames
    expect(opusPacketDurationMs(Buffer.from([0xe0]))).toBe(2.5);
    expect(opusPacketDurationMs(Buffer.from([]))).toBeUndefined();
  });
});

describe('a segment', () => {
  it('leaves no hole in its video or its audio where frames came late or sound paused', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailcam-span-writer-'));
    const { writer, setClock } = writerOnClock(dir, { audio: true, segmentMs: 10_000 });
    // Video at 30 fps with frames held back (67 ms, then 166 ms between two).
    const videoAt = [0, 33, 100, 266, 300, 333, 367, 400];
    // Audio starting 7 ms into the video, with a pause of 120 ms (DTX), one packet of 2 x 10 ms.
    const audioAt = [7, 27, 47, 67, 187, 207, 227, 247, 267, 287, 307, 327, 347, 367, 387];
    const events = [
      ...videoAt.map((at, index) => ({ at, video: index === 0 ? KEY : DELTA })),
      ...audioAt.map((at, index) => ({ at, audio: index === 5 ? OPUS_2X10 : OPUS_20 })),
    ].sort((a, b) => a.at - b.at);
    for (const event of events) {
      setClock(event.at);
      if ('video' in event)
        writer.video({ data: event.video, keyFrame: event.at === 0, timeMs: event.at });
      else writer.audio({ data: event.audio, keyFrame: true, timeMs: event.at - 7 });
    }
    await writer.close();

    const [name] = readdirSync(writer.dir).filter((file) => file.endsWith('.webm'));
    if (!name) throw new Error('no segment written');
    const path = join(writer.dir, name);
    expect(readFileSync(path).includes(DEFAULT_DURATION_ID)).toBe(false);

    const input = new Input({ source: new FilePathSource(path), formats: ALL_FORMATS });
    const video = await input.getPrimaryVideoTrack();
    const audio = await input.getPrimaryAudioTrack();
    if (!video || !audio) throw new Error('a track is missing');
    const videoStarts: number[] = [];
    for await (const packet of new EncodedPacketSink(video).packets()) {
      videoStarts.push(Math.round(packet.timestamp * 1000));
    }
    // Each frame where it came, so that it lasts until the next.
    expect(videoStarts).toEqual(videoAt);

    // The audio as a browser times it (each packet its TOC's length): no gap over 2.5 ms, from
    // the segment's start to past the last video frame's.
    let end = 0;
    let widestGap = 0;
    for await (const packet of new EncodedPacketSink(audio).packets()) {
      const start = packet.timestamp * 1000;
      widestGap = Math.max(widestGap, start - end);
      end = Math.max(end, start + (opusPacketDurationMs(packet.data) ?? 0));
    }
    expect(widestGap).toBeLessThanOrEqual(2.5);
    expect(end).toBeGreaterThanOrEqual(400);
    // Its Opus identification header as the track's CodecPrivate (Firefox plays no Opus track
    // without one).
    const description = (await audio.getDecoderConfig())?.description;
    expect(description && Buffer.from(description as Uint8Array).toString('latin1', 0, 8)).toBe(
      'OpusHead',
    );
  });
});

describe('a span on disk', () => {
  it('is readable by its owner only: folders 0700, segments, span.json and index 0600', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailcam-span-writer-'));
    const stageDir = join(dir, 'N743AS');
    const { writer, setClock } = writerOnClock(stageDir, { audio: false, segmentMs: 100 });
    // Two segments: a key frame at 0 and at 200 ms cuts the first.
    for (const at of [0, 33, 66, 200, 233]) {
      setClock(at);
      writer.video({ data: at % 200 === 0 ? KEY : DELTA, keyFrame: at % 200 === 0, timeMs: at });
    }
    await writer.close();

    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(stageDir)).toBe(0o700);
    expect(mode(writer.dir)).toBe(0o700);
    const files = readdirSync(writer.dir);
    expect(files.filter((name) => name.endsWith('.webm'))).toHaveLength(2);
    for (const name of files)
      expect({ name, mode: mode(join(writer.dir, name)) }).toEqual({ name, mode: 0o600 });
  });

  it('appends each segment to the span’s index as it starts and, finished, with its size', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailcam-span-writer-'));
    const { writer, setClock } = writerOnClock(dir, { audio: false, segmentMs: 100 });
    for (const at of [0, 33, 200, 233]) {
      setClock(at);
      writer.video({ data: at % 200 === 0 ? KEY : DELTA, keyFrame: at % 200 === 0, timeMs: at });
    }
    await writer.close();

    const lines = readFileSync(join(writer.dir, SEGMENT_INDEX_FILE), 'utf8').trimEnd().split('\n');
    // In the order their files were finished, which need not be the order they began in.
    const byName = (a?: { name?: string }, b?: { name?: string }) =>
      (a?.name ?? '').localeCompare(b?.name ?? '');
    const segments = readdirSync(writer.dir)
      .filter((name) => name.endsWith('.webm'))
      .sort();
    const entries = lines.map((line) => parseSegmentIndexLine(line));
    // Each segment's start comes before its end (decision 0085: the API serves it meanwhile).
    expect(entries.slice(0, 1)).toEqual([
      { change: 'writing', name: '0000000000.part', offsetMs: 0 },
    ]);
    expect(
      entries.filter((entry) => entry?.change === 'writing').map((entry) => entry?.name),
    ).toEqual(['0000000000.part', '0000000200.part']);
    expect(entries.filter((entry) => entry?.change === 'added').sort(byName)).toEqual(
      segments.map((name) =>
        expect.objectContaining({
          change: 'added',
          name,
          bytes: statSync(join(writer.dir, name)).size,
        }),
      ),
    );
  });
});
