import { describe, expect, it } from 'vitest';
import type { RecordedSpan } from '../api/recordings';
import { CLIP_MAX_MS, clipBetween } from './clip';

const T0 = Date.UTC(2026, 10, 29, 6, 0, 0);
const MINUTE = 60_000;

function span(startMs: number, endMs: number): RecordedSpan {
  return {
    span: String(startMs),
    startMs,
    endMs,
    publisher: 'camera',
    mimeType: 'video/webm; codecs="vp8,opus"',
    segments: [{ name: 'a.webm', offsetMs: 0, durationMs: endMs - startMs }],
  };
}

// 06:00–06:10, then 06:20–08:00.
const early = span(T0, T0 + 10 * MINUTE);
const long = span(T0 + 20 * MINUTE, T0 + 120 * MINUTE);
const spans = [long, early];

describe('a clip between two marks', () => {
  it('is the stretch marked, in either order, inside one recording', () => {
    const marked = { kind: 'clip', span: early, fromMs: T0 + MINUTE, toMs: T0 + 2 * MINUTE };
    expect(clipBetween(spans, T0 + MINUTE, T0 + 2 * MINUTE)).toEqual(marked);
    expect(clipBetween(spans, T0 + 2 * MINUTE, T0 + MINUTE)).toEqual(marked);
  });

  it('is cut where its recording ends, and says so', () => {
    expect(clipBetween(spans, T0 + 5 * MINUTE, T0 + 30 * MINUTE)).toEqual({
      kind: 'clip',
      span: early,
      fromMs: T0 + 5 * MINUTE,
      toMs: early.endMs,
      cut: 'span',
    });
  });

  it('starts at the first recorded instant when its start mark is in a gap', () => {
    expect(clipBetween(spans, T0 + 15 * MINUTE, T0 + 25 * MINUTE)).toEqual({
      kind: 'clip',
      span: long,
      fromMs: long.startMs,
      toMs: T0 + 25 * MINUTE,
    });
  });

  it('is an hour at most, and says so', () => {
    expect(clipBetween(spans, T0 + 30 * MINUTE, T0 + 110 * MINUTE)).toEqual({
      kind: 'clip',
      span: long,
      fromMs: T0 + 30 * MINUTE,
      toMs: T0 + 30 * MINUTE + CLIP_MAX_MS,
      cut: 'hour',
    });
  });

  it('is nothing where nothing was recorded between the marks', () => {
    expect(clipBetween(spans, T0 + 11 * MINUTE, T0 + 19 * MINUTE)).toEqual({
      kind: 'nothing',
      fromMs: T0 + 11 * MINUTE,
      toMs: T0 + 19 * MINUTE,
    });
  });
});
