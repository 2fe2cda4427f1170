/**
 * What a segment's preview costs (segment-previews.ts, decision 0084): one decode at a time per
 * aircraft, the newest key frame that comes meanwhile waiting for it; without ffmpeg no preview,
 * said once; a decode that fails costs its preview and nothing of the segment; the decode runs
 * below the recorder (decision 0111, both).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSegmentIndexLine, SEGMENT_INDEX_FILE } from '@tailcam/protocol/recordings';
import type { EncodedKeyFrame } from '../codecs/decode-key-frame';
import { createStageLogger } from '../stage-log';
import { PREVIEW_NICE, SegmentPreviews } from './segment-previews';
import { SpanWriter } from './span-writer';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
const KEY_FRAME: EncodedKeyFrame = { codec: 'vp8', data: new Uint8Array([1, 2, 3]) };
/** A VP8 key frame's header for 320x180 (RFC 6386 9.1), then no picture a decoder can read. */
const BROKEN_KEY = Buffer.from([0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00, 1, 2]);

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function logLines() {
  const lines: { level: number; msg: string }[] = [];
  const log = createStageLogger({
    format: 'json',
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { lines, log };
}

describe('segment previews', () => {
  it('decode one key frame at a time per aircraft; the newest that comes meanwhile waits for it, an older one gets none', async () => {
    const pending: { data: Buffer; resolve: (jpeg: Buffer) => void }[] = [];
    const previews = new SegmentPreviews({
      ffmpeg: 'ffmpeg',
      log: logLines().log,
      decode: (keyFrame) =>
        new Promise<Buffer>((resolve) =>
          pending.push({ data: Buffer.from(keyFrame.data), resolve }),
        ),
    });
    const frame = (n: number) => ({ ...KEY_FRAME, data: Buffer.from([n]) });
    const n743as = previews.forAircraft();
    const n953as = previews.forAircraft();
    const first = n743as(frame(1));
    const dropped = n743as(frame(2));
    const newest = n743as(frame(3));
    // Another aircraft's is its own.
    const other = n953as(frame(4));
    expect(pending.map(({ data }) => data[0])).toEqual([1, 4]);

    pending[0]?.resolve(Buffer.from('jpeg 1'));
    expect(await first).toEqual(Buffer.from('jpeg 1'));
    expect(await dropped).toBeUndefined();
    // Only once the first is done: one decode at a time.
    expect(pending.map(({ data }) => data[0])).toEqual([1, 4, 3]);
    pending[2]?.resolve(Buffer.from('jpeg 3'));
    expect(await newest).toEqual(Buffer.from('jpeg 3'));
    pending[1]?.resolve(Buffer.from('jpeg 4'));
    expect(await other).toEqual(Buffer.from('jpeg 4'));
    expect(previews.counts).toMatchObject({ decodes: 3, skipped: 1 });
  });

  it('give none without ffmpeg, and say so once', async () => {
    const { lines, log } = logLines();
    const previews = new SegmentPreviews({ ffmpeg: '/nonexistent/ffmpeg', log });
    const n743as = previews.forAircraft();
    expect(await n743as(KEY_FRAME)).toBeUndefined();
    // Not tried again: no process per segment that cannot start.
    expect(n743as(KEY_FRAME)).toBeUndefined();
    expect(previews.forAircraft()(KEY_FRAME)).toBeUndefined();
    expect(lines.map((line) => line.msg)).toEqual([
      expect.stringMatching(
        /^recording: could not run \/nonexistent\/ffmpeg: .*; segments are written without previews/,
      ),
    ]);
  });

  it('decode below the recorder: ffmpeg runs at niceness PREVIEW_NICE (a picture may wait)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tailcam-preview-nice-'));
    const reported = join(dir, 'niceness');
    // An "ffmpeg" that takes its input, tells its niceness and gives no picture.
    const ffmpeg = join(dir, 'ffmpeg');
    writeFileSync(ffmpeg, `#!/bin/sh\ncat > /dev/null\nsleep 0.2\nnice > '${reported}'\nexit 1\n`, {
      mode: 0o755,
    });
    const previews = new SegmentPreviews({ ffmpeg, log: logLines().log });
    expect(await previews.forAircraft()(KEY_FRAME)).toBeUndefined();
    expect(Number(readFileSync(reported, 'utf8'))).toBe(Math.max(PREVIEW_NICE, getPriority()));
  });

  it.skipIf(!hasFfmpeg)(
    'cost only the preview when the decode fails: the segment is written and listed',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'tailcam-segment-previews-'));
      const { lines, log } = logLines();
      const previews = new SegmentPreviews({ ffmpeg: 'ffmpeg', log });
      let clock = 1_000_000;
      const writer = new SpanWriter({
        stageDir: dir,
        video: 'vp8',
        audio: false,
        publisher: 'camera',
        segmentMs: 10_000,
        requestKeyFrame: () => undefined,
        mayStartSegment: () => true,
        log,
        now: () => clock,
        preview: previews.forAircraft(),
      });
      for (const at of [0, 33, 66]) {
        clock = 1_000_000 + at;
        writer.video({ data: BROKEN_KEY, keyFrame: at === 0, timeMs: at });
      }
      await writer.close();
      expect(readdirSync(writer.dir).filter((name) => !name.endsWith('.webm'))).toEqual([
        SEGMENT_INDEX_FILE,
        'span.json',
      ]);
      const index = readFileSync(join(writer.dir, SEGMENT_INDEX_FILE), 'utf8').trimEnd();
      const entries = index.split('\n').map((line) => parseSegmentIndexLine(line)?.change);
      expect(entries).toEqual(['writing', 'added']);
      expect(previews.counts).toMatchObject({ decodes: 0, failures: 1 });
      expect(lines.map((line) => line.msg)).toEqual([
        expect.stringMatching(/^recording: a segment has no preview: ffmpeg exited with code/),
      ]);
    },
  );
});
