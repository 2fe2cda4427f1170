/**
 * Retention (retention.ts): what goes by age, what goes by size (the oldest first), and the
 * free-space floor that holds recording, against a real directory with a fake clock and a fake
 * free-space reading.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSpans, type StoredSpan } from '@tailcam/protocol/recordings-store';
import {
  flightFileName,
  partFileName,
  SEGMENT_INDEX_FILE,
  segmentFileName,
  spanName,
} from '@tailcam/protocol/recordings';
import { createStageLogger } from '../stage-log';
import { removeLeftoverParts } from './recorder';
import { floorAllows, planRemovals, Retention } from './retention';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 26, 8, 0, 0);
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A recordings root with, per aircraft, spans of 2 s segments of `bytes` each. */
function recordings(
  spans: { stageId: string; startMs: number; segments: number; bytes: number }[],
): string {
  const root = mkdtempSync(join(tmpdir(), 'tailcam-retention-'));
  dirs.push(root);
  for (const span of spans) {
    const dir = join(root, span.stageId, spanName(span.startMs));
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'span.json'),
      '{"container":"webm","codecs":"vp8","publisher":"camera"}',
    );
    for (let index = 0; index < span.segments; index += 1) {
      const name = segmentFileName({ offsetMs: index * 2000, durationMs: 2000, container: 'webm' });
      writeFileSync(join(dir, name), Buffer.alloc(span.bytes));
    }
  }
  return root;
}

function logLines() {
  const lines: { level: number; msg: string }[] = [];
  const log = createStageLogger({
    format: 'json',
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { lines, log };
}

const names = (spans: StoredSpan[]) =>
  spans.flatMap((span) => span.segments.map((s) => `${span.stageId}@${s.startMs - T0}`));

describe('planRemovals', () => {
  it('removes what ended before the age limit, and nothing younger', async () => {
    const root = recordings([
      { stageId: 'N743AS', startMs: T0, segments: 3, bytes: 10 },
      { stageId: 'N953AS', startMs: T0 + HOUR, segments: 2, bytes: 10 },
    ]);
    const spans = await readSpans(root);
    // Just after T0 + 24 h + 4 s: the first span's first two segments ended more than 24 h ago.
    const plan = planRemovals(spans, T0 + 24 * HOUR + 4_001, {
      maxAgeMs: 24 * HOUR,
      maxBytes: 1e9,
    });
    expect(plan.map((removal) => removal.name)).toEqual([
      '0000000000-2000.webm',
      '0000002000-2000.webm',
    ]);
    expect(planRemovals(spans, T0 + 1000, { maxAgeMs: 24 * HOUR, maxBytes: 1e9 })).toEqual([]);
  });

  it('over the size limit, removes the oldest first across aircraft until it fits', async () => {
    const root = recordings([
      { stageId: 'N953AS', startMs: T0 + 10_000, segments: 2, bytes: 100 },
      { stageId: 'N743AS', startMs: T0, segments: 2, bytes: 100 },
    ]);
    const spans = await readSpans(root);
    expect(names(spans)).toEqual(['N743AS@0', 'N743AS@2000', 'N953AS@10000', 'N953AS@12000']);
    const plan = planRemovals(spans, T0 + 20_000, { maxAgeMs: 24 * HOUR, maxBytes: 250 });
    // 400 bytes kept, 250 allowed: the two oldest go (N743AS's), 200 are left.
    expect(plan.map((removal) => removal.dir.split('/').at(-2))).toEqual(['N743AS', 'N743AS']);
    expect(planRemovals(spans, T0 + 20_000, { maxAgeMs: 24 * HOUR, maxBytes: 400 })).toEqual([]);
  });
});

describe('the free-space floor', () => {
  it('holds below the floor and lets go only at 110% of it', () => {
    expect(floorAllows(999, 1000, false)).toBe(false);
    expect(floorAllows(1000, 1000, false)).toBe(true);
    expect(floorAllows(1050, 1000, true)).toBe(false);
    expect(floorAllows(1100, 1000, true)).toBe(true);
  });

  it('a sweep removes the files, leaves the unfinished one, and says loudly when it stops recording', async () => {
    const root = recordings([{ stageId: 'N743AS', startMs: T0, segments: 3, bytes: 100 }]);
    const spanDir = join(root, 'N743AS', spanName(T0));
    writeFileSync(join(spanDir, partFileName(6000)), Buffer.alloc(100));
    let free = 10 * 2 ** 20;
    const { lines, log } = logLines();
    const retention = new Retention({
      root,
      log,
      maxAgeMs: 24 * HOUR,
      maxBytes: 150,
      minFreeBytes: 20 * 2 ** 20,
      freeBytes: async () => free,
      now: () => T0 + 10_000,
    });
    expect(retention.allowsRecording).toBe(true);
    const swept = await retention.sweep();
    expect(swept.held).toBe(true);
    expect(retention.allowsRecording).toBe(false);
    expect(readdirSync(spanDir).sort()).toEqual([
      '0000004000-2000.webm',
      '0000006000.part',
      'span.json',
    ]);
    expect(lines.filter((line) => line.level >= 50).map((line) => line.msg)).toEqual([
      expect.stringMatching(/^recording stopped: 10 MiB free .* under the floor of 20 MiB/),
    ]);
    // Said once, not on every sweep; and recording resumes once there is room.
    await retention.sweep();
    free = 30 * 2 ** 20;
    await retention.sweep();
    expect(retention.allowsRecording).toBe(true);
    expect(lines.filter((line) => line.level >= 50)).toHaveLength(1);
    expect(lines.map((line) => line.msg)).toContainEqual(
      expect.stringMatching(/^recording resumed/),
    );
  });
});

describe('the span index', () => {
  it('hears of each segment retention removes, so that the API stops listing it', async () => {
    const root = recordings([{ stageId: 'N743AS', startMs: T0, segments: 3, bytes: 10 }]);
    const spanDir = join(root, 'N743AS', spanName(T0));
    const added = '+0000000000-2000.webm 10\n+0000002000-2000.webm 10\n+0000004000-2000.webm 10\n';
    writeFileSync(join(spanDir, SEGMENT_INDEX_FILE), added);
    const { log } = logLines();
    const retention = new Retention({
      root,
      log,
      maxAgeMs: 24 * HOUR,
      maxBytes: 1e9,
      minFreeBytes: 0,
      freeBytes: async () => 1e12,
      now: () => T0 + 24 * HOUR + 4_001,
    });
    await retention.sweep();
    expect(readFileSync(join(spanDir, SEGMENT_INDEX_FILE), 'utf8')).toBe(
      `${added}-0000000000-2000.webm\n-0000002000-2000.webm\n`,
    );
  });
});

describe('segment previews (decision 0084)', () => {
  it('go with their segment, and are not counted against the size limit', async () => {
    const root = recordings([{ stageId: 'N743AS', startMs: T0, segments: 3, bytes: 100 }]);
    const spanDir = join(root, 'N743AS', spanName(T0));
    for (const offsetMs of [0, 2000, 4000]) {
      writeFileSync(join(spanDir, `${String(offsetMs).padStart(10, '0')}-2000.jpg`), 'jpeg');
    }
    const { log } = logLines();
    const retention = new Retention({
      root,
      log,
      maxAgeMs: 24 * HOUR,
      maxBytes: 200,
      minFreeBytes: 0,
      freeBytes: async () => 1e12,
      now: () => T0 + 10_000,
    });
    const swept = await retention.sweep();
    expect(swept.removed.map((removal) => removal.preview)).toEqual(['0000000000-2000.jpg']);
    expect(readdirSync(spanDir).sort()).toEqual([
      '0000002000-2000.jpg',
      '0000002000-2000.webm',
      '0000004000-2000.jpg',
      '0000004000-2000.webm',
      'span.json',
    ]);
  });

  it('are removed at the recorder’s start when half written or left without their segment', () => {
    const root = recordings([{ stageId: 'N743AS', startMs: T0, segments: 1, bytes: 100 }]);
    const spanDir = join(root, 'N743AS', spanName(T0));
    writeFileSync(join(spanDir, '0000000000-2000.jpg'), 'its segment is there');
    writeFileSync(join(spanDir, '0000002000-2000.jpg'), 'its segment is gone');
    writeFileSync(join(spanDir, '0000002000-2000.jpg.part'), 'half written');
    writeFileSync(join(spanDir, partFileName(2000)), 'a segment being written');
    expect(removeLeftoverParts(root)).toBe(3);
    expect(readdirSync(spanDir).sort()).toEqual([
      '0000000000-2000.jpg',
      '0000000000-2000.webm',
      'span.json',
    ]);
  });
});

describe('flight data (decision 0096)', () => {
  it('goes with its segment, and is not counted against the size limit', async () => {
    const root = recordings([{ stageId: 'N953AS', startMs: T0, segments: 3, bytes: 100 }]);
    const spanDir = join(root, 'N953AS', spanName(T0));
    for (const offsetMs of [0, 2000, 4000]) {
      writeFileSync(join(spanDir, flightFileName(offsetMs)), Buffer.alloc(500));
    }
    const { log } = logLines();
    const retention = new Retention({
      root,
      log,
      maxAgeMs: 24 * HOUR,
      maxBytes: 200,
      minFreeBytes: 0,
      freeBytes: async () => 1e12,
      now: () => T0 + 10_000,
    });
    await retention.sweep();
    expect(readdirSync(spanDir).sort()).toEqual([
      '0000002000-2000.webm',
      '0000002000.flight',
      '0000004000-2000.webm',
      '0000004000.flight',
      'span.json',
    ]);
  });
});
