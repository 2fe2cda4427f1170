/**
 * The timeline's arithmetic (decision 0086): recorded time and gaps to scale, the zoom levels'
 * windows within the last 24 h, an instant's place and back, and where an instant plays from.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedSpan } from '../api/recordings';
import {
  DAY_MS,
  fractionOf,
  instantAt,
  panned,
  pieceAt,
  playbackAt,
  nextSpanAfter,
  recordedBars,
  recordedPieces,
  ticks,
  viewAround,
  viewShowing,
  zoomLevel,
} from './timeline-scale';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const HOUR = 3_600_000;

/** A span of 4 s segments from `startMs`, `count` of them, with `holeAfter` a gap of `holeMs`. */
function span(startMs: number, count: number, hole?: { after: number; ms: number }): RecordedSpan {
  let offsetMs = 0;
  const segments = Array.from({ length: count }, (_, index) => {
    const segment = { name: `${index}.webm`, offsetMs, durationMs: 4000 };
    offsetMs += 4000 + (hole && index === hole.after ? hole.ms : 0);
    return segment;
  });
  return {
    span: String(startMs),
    startMs,
    endMs: startMs + offsetMs,
    publisher: 'camera',
    mimeType: 'video/webm; codecs="vp8,opus"',
    segments,
  };
}

describe('the timeline scale', () => {
  it('shows the last 24 h with now at its right end, and an hour or five minutes zoomed in', () => {
    expect(viewAround(NOW, DAY_MS, NOW)).toEqual({ startMs: NOW - DAY_MS, endMs: NOW });
    const hour = viewAround(NOW - 3 * HOUR, zoomLevel('hour').windowMs, NOW);
    expect(hour).toEqual({ startMs: NOW - 3.5 * HOUR, endMs: NOW - 2.5 * HOUR });
    const minutes = viewAround(NOW - HOUR, zoomLevel('minutes').windowMs, NOW);
    expect(minutes.endMs - minutes.startMs).toBe(300_000);
    // Near either end of the day, the window stays whole inside it.
    expect(viewAround(NOW - 60_000, HOUR, NOW)).toEqual({ startMs: NOW - HOUR, endMs: NOW });
    expect(viewAround(NOW - DAY_MS, HOUR, NOW)).toEqual({
      startMs: NOW - DAY_MS,
      endMs: NOW - DAY_MS + HOUR,
    });
  });

  it('maps an instant to its place across the view and back, to the second', () => {
    const view = { startMs: NOW - HOUR, endMs: NOW };
    expect(fractionOf(view, NOW - HOUR / 4)).toBe(0.75);
    expect(instantAt(view, 0.75)).toBe(NOW - HOUR / 4);
    expect(instantAt(view, 0.5 + 0.4 / HOUR)).toBe(NOW - HOUR / 2); // rounded to the second
    expect(instantAt(view, -1)).toBe(view.startMs);
    expect(instantAt(view, 2)).toBe(NOW);
  });

  it('pans by half a view and follows an instant out of view, never past now or the day', () => {
    const view = { startMs: NOW - 3 * HOUR, endMs: NOW - 2 * HOUR };
    expect(panned(view, -0.5, NOW)).toEqual({
      startMs: NOW - 3.5 * HOUR,
      endMs: NOW - 2.5 * HOUR,
    });
    expect(panned({ startMs: NOW - HOUR, endMs: NOW }, 0.5, NOW)).toEqual({
      startMs: NOW - HOUR,
      endMs: NOW,
    });
    expect(viewShowing(view, NOW - 2.5 * HOUR, NOW)).toBe(view);
    // Out of view: moved just far enough, the instant at its edge.
    expect(viewShowing(view, NOW - 2 * HOUR + 10_000, NOW)).toEqual({
      startMs: NOW - 3 * HOUR + 10_000,
      endMs: NOW - 2 * HOUR + 10_000,
    });
    expect(viewShowing(view, NOW - 3 * HOUR - 10_000, NOW).startMs).toBe(NOW - 3 * HOUR - 10_000);
  });

  it('draws recorded time and gaps to scale, joining what lies within a pixel', () => {
    // Two spans an hour apart; the first holds a gap of 20 s after its 10th segment.
    const first = span(NOW - 4 * HOUR, 100, { after: 9, ms: 20_000 });
    const second = span(NOW - 3 * HOUR, 450);
    const pieces = recordedPieces([second, first]);
    expect(pieces).toHaveLength(550);
    expect(pieces[0]!.startMs).toBe(first.startMs); // in time order, whatever the list's

    // The day on 1000 px: 86.4 s a pixel. The 20 s gap is under a pixel; the hour's is not.
    const day = { startMs: NOW - DAY_MS, endMs: NOW };
    const dayBars = recordedBars(pieces, day, DAY_MS / 1000);
    expect(dayBars).toHaveLength(2);
    expect(dayBars[0]!.left).toBeCloseTo(20 / 24, 6);
    expect(dayBars[0]!.width).toBeCloseTo(420_000 / DAY_MS, 9);
    expect(dayBars[1]!.left).toBeCloseTo(21 / 24, 6);
    expect(dayBars[1]!.width).toBeCloseTo(1_800_000 / DAY_MS, 9);

    // Five minutes on 1000 px: 0.3 s a pixel; the 20 s gap shows, at its place.
    const minutes = { startMs: first.startMs, endMs: first.startMs + 300_000 };
    const minuteBars = recordedBars(pieces, minutes, 300);
    expect(minuteBars).toHaveLength(2);
    expect(minuteBars[0]).toEqual({ left: 0, width: 40_000 / 300_000 });
    expect(minuteBars[1]!.left).toBeCloseTo(60_000 / 300_000, 9);
    expect(minuteBars[1]!.left + minuteBars[1]!.width).toBeCloseTo(1, 9); // cut at the view
  });

  it('draws a day of 4 s segments of three aircraft as a few bars, not thousands', () => {
    const daySpan = span(NOW - DAY_MS, DAY_MS / 4000);
    const pieces = recordedPieces([daySpan]);
    expect(pieces).toHaveLength(21_600);
    expect(recordedBars(pieces, { startMs: NOW - DAY_MS, endMs: NOW }, 86_400)).toHaveLength(1);
  });

  it('finds the piece and the span an instant lies in, and the next recording after a gap', () => {
    const first = span(NOW - 4 * HOUR, 10, { after: 4, ms: 700 });
    const second = span(NOW - 3 * HOUR, 10);
    const spans = [first, second];
    const pieces = recordedPieces(spans);
    expect(pieceAt(pieces, first.startMs + 9_000)).toMatchObject({ spanIndex: 0, segmentIndex: 2 });
    // In the span's own 0.7 s gap: no piece, but the span plays across it.
    const inHole = first.startMs + 20_300;
    expect(pieceAt(pieces, inHole)).toBeUndefined();
    expect(playbackAt(spans, inHole)).toEqual({ span: first, offsetMs: 20_300 });
    expect(playbackAt(spans, second.startMs + 5_000)).toEqual({ span: second, offsetMs: 5_000 });
    // Between the spans: nothing plays; the next recording is the second span.
    expect(playbackAt(spans, NOW - 3.5 * HOUR)).toBeUndefined();
    expect(nextSpanAfter(spans, NOW - 3.5 * HOUR)).toBe(second);
    expect(nextSpanAfter(spans, NOW - HOUR)).toBeUndefined();
  });

  it('marks round times, fewer where there is less room', () => {
    const day = { startMs: NOW - DAY_MS, endMs: NOW };
    expect(ticks(day, 9)).toHaveLength(9); // every 3 h, both ends
    expect(ticks(day, 8)).toHaveLength(5); // every 6 h
    expect(ticks(day, 5).every((ms) => ms % (6 * HOUR) === 0)).toBe(true);
    const hour = { startMs: NOW - HOUR - 60_000, endMs: NOW - 60_000 };
    expect(ticks(hour, 7)).toEqual(
      [6, 5, 4, 3, 2, 1].map((tenMinutes) => NOW - tenMinutes * 600_000),
    );
  });
});
