/**
 * The timeline's arithmetic (docs/product.md#recordings, decision 0086): what an aircraft recorded
 * as pieces of time, the window of the last 24 h shown at one of three zoom levels, an instant's
 * place across it and back, and where an instant lies in a span (to play from it). No React: the
 * timeline component draws what this computes.
 */
import type { RecordedSpan } from '../api/recordings';

export const DAY_MS = 24 * 3_600_000;

/** The zoom levels, widest first: the day, an hour, five minutes. */
export const ZOOM_LEVELS = [
  { id: 'day', windowMs: DAY_MS, stepMs: 60_000 },
  { id: 'hour', windowMs: 3_600_000, stepMs: 10_000 },
  { id: 'minutes', windowMs: 300_000, stepMs: 1_000 },
] as const;
export type ZoomId = (typeof ZOOM_LEVELS)[number]['id'];

export function zoomLevel(id: ZoomId) {
  return ZOOM_LEVELS.find((level) => level.id === id) ?? ZOOM_LEVELS[0];
}

/** One stretch of recorded time: a segment (or a whole span where it has none, as IVS's). */
export interface RecordedPiece {
  startMs: number;
  endMs: number;
  spanIndex: number;
  /** The segment's index in its span; -1 for a span without segments. */
  segmentIndex: number;
}

/** Every recorded piece of an aircraft's spans, in time order. */
export function recordedPieces(spans: readonly RecordedSpan[]): RecordedPiece[] {
  const pieces = spans.flatMap((span, spanIndex) =>
    span.segments.length === 0
      ? [{ startMs: span.startMs, endMs: span.endMs, spanIndex, segmentIndex: -1 }]
      : span.segments.map((segment, segmentIndex) => ({
          startMs: span.startMs + segment.offsetMs,
          endMs: span.startMs + segment.offsetMs + segment.durationMs,
          spanIndex,
          segmentIndex,
        })),
  );
  return pieces.sort((a, b) => a.startMs - b.startMs);
}

/** The index of the first piece that ends after `ms` (pieces.length when none does). */
function firstEndingAfter(pieces: readonly RecordedPiece[], ms: number): number {
  let low = 0;
  let high = pieces.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (pieces[middle]!.endMs <= ms) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The piece holding `ms`, if it was recorded. */
export function pieceAt(pieces: readonly RecordedPiece[], ms: number): RecordedPiece | undefined {
  const piece = pieces[firstEndingAfter(pieces, ms)];
  return piece && piece.startMs <= ms ? piece : undefined;
}

/** What is shown: `startMs` to `endMs`, never past now nor before the day shown. */
export interface TimelineView {
  startMs: number;
  endMs: number;
}

/**
 * The view of `windowMs` centred on `centreMs`, moved whole into the last 24 h before `nowMs`
 * ("now" is its right end at the widest).
 */
export function viewAround(centreMs: number, windowMs: number, nowMs: number): TimelineView {
  const earliest = nowMs - DAY_MS;
  const startMs = Math.min(Math.max(centreMs - windowMs / 2, earliest), nowMs - windowMs);
  return { startMs, endMs: startMs + windowMs };
}

/** The view moved by `fraction` of its width (negative: earlier), kept within the day. */
export function panned(view: TimelineView, fraction: number, nowMs: number): TimelineView {
  const windowMs = view.endMs - view.startMs;
  return viewAround(view.startMs + windowMs / 2 + fraction * windowMs, windowMs, nowMs);
}

/** The view moved as little as it takes to show `ms`. */
export function viewShowing(view: TimelineView, ms: number, nowMs: number): TimelineView {
  if (ms >= view.startMs && ms <= view.endMs) return view;
  const windowMs = view.endMs - view.startMs;
  const centre = ms < view.startMs ? ms + windowMs / 2 : ms - windowMs / 2;
  return viewAround(centre, windowMs, nowMs);
}

/** Where `ms` lies across the view, 0 at its left end and 1 at its right. */
export function fractionOf(view: TimelineView, ms: number): number {
  return (ms - view.startMs) / (view.endMs - view.startMs);
}

/** The instant at `fraction` across the view (clamped to it), to the whole second. */
export function instantAt(view: TimelineView, fraction: number): number {
  const clamped = Math.min(Math.max(fraction, 0), 1);
  const ms = view.startMs + clamped * (view.endMs - view.startMs);
  return Math.min(Math.max(Math.round(ms / 1000) * 1000, view.startMs), view.endMs);
}

/** A bar to draw: where recorded time lies across the view, as fractions of its width. */
export interface RecordedBar {
  left: number;
  width: number;
}

/**
 * The recorded time within the view as bars, to scale: pieces nearer each other than
 * `joinWithinMs` (a pixel's worth of time) are drawn as one bar, so a day of 4 s segments is a
 * few bars per pixel column at most, while a gap of a pixel or more shows.
 */
export function recordedBars(
  pieces: readonly RecordedPiece[],
  view: TimelineView,
  joinWithinMs: number,
): RecordedBar[] {
  const windowMs = view.endMs - view.startMs;
  const bars: { startMs: number; endMs: number }[] = [];
  for (let index = firstEndingAfter(pieces, view.startMs); index < pieces.length; index += 1) {
    const piece = pieces[index]!;
    if (piece.startMs >= view.endMs) break;
    const startMs = Math.max(piece.startMs, view.startMs);
    const endMs = Math.min(piece.endMs, view.endMs);
    const last = bars.at(-1);
    if (last && startMs - last.endMs < joinWithinMs) last.endMs = Math.max(last.endMs, endMs);
    else bars.push({ startMs, endMs });
  }
  return bars.map(({ startMs, endMs }) => ({
    left: (startMs - view.startMs) / windowMs,
    width: (endMs - startMs) / windowMs,
  }));
}

/** Tick marks: the round times in the view, as many as `maxTicks` allows at most. */
export function ticks(view: TimelineView, maxTicks: number): number[] {
  const steps = [60_000, 300_000, 600_000, 1_800_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000];
  const windowMs = view.endMs - view.startMs;
  const step = steps.find((each) => Math.floor(windowMs / each) + 1 <= maxTicks) ?? DAY_MS;
  const marks: number[] = [];
  for (let ms = Math.ceil(view.startMs / step) * step; ms <= view.endMs; ms += step) {
    marks.push(ms);
  }
  return marks;
}

/**
 * Where to play `ms` from: the span holding it and the offset into that span. A span's own gaps
 * (under a second, decision 0075) are part of it: the player plays across them.
 */
export function playbackAt(
  spans: readonly RecordedSpan[],
  ms: number,
): { span: RecordedSpan; offsetMs: number } | undefined {
  const span = spans.find((each) => each.startMs <= ms && ms < each.endMs);
  return span && { span, offsetMs: ms - span.startMs };
}

/** The first span that starts after `ms`: where playback goes on from a gap. */
export function nextSpanAfter(
  spans: readonly RecordedSpan[],
  ms: number,
): RecordedSpan | undefined {
  return spans
    .filter((span) => span.startMs > ms)
    .reduce<RecordedSpan | undefined>(
      (first, span) => (first && first.startMs <= span.startMs ? first : span),
      undefined,
    );
}
