/**
 * The live player's rewind (docs/product.md#rewind, decision 0088), in wall-clock time: what of the
 * last hour is recorded, where a rewind lands, and how far behind live a picture is. Pure: the
 * feed (recording-feed.ts) plays what this chooses.
 */
import type { AircraftRecordings, RecordedSpan } from '../api/recordings';

/**
 * Whether this browser plays a segment of `mimeType` appended as it grows (decision 0085). The
 * recorder writes a growing WebM append-only, its Clusters of unknown size: Chromium plays it as it
 * comes; Firefox 140 buffers one or two Clusters of it and then nothing more until the segment is
 * whole (seen in the e2e whenever a key frame, asked by any viewer or the thumbnails, began a third
 * Cluster), so there the rewind reads WebM segments once finished. Fragmented MP4 grows in both.
 */
export function growingSegmentPlays(mimeType: string, userAgent: string): boolean {
  return !(mimeType.startsWith('video/webm') && /\bFirefox\//.test(userAgent));
}

/** How far back the live player goes. */
export const REWIND_WINDOW_MS = 60 * 60 * 1000;
/** Recorded stretches closer than this are one on the scrubber (the API's own join is 1 s). */
const JOIN_MS = 1_500;
/**
 * How far Amazon IVS's recordings trail live: IVS writes a recording in segments of
 * `targetSegmentDurationSeconds` (6 s: `npm run ivs -- provision` keeps IVS's default; longer
 * when a key frame is late) and uploads each to S3 once it is whole, so the newest recorded
 * instant is at least a segment behind live, and a segment more while the next one is written
 * and uploaded. Nothing newer is offered (decision 0088, "Amazon IVS").
 */
export const IVS_RECORDING_DELAY_MS = 12_000;

/** One recorded file to append: a finished segment, or the one being written (no duration yet). */
export interface FeedSegment {
  /** `${span}/${name}`: the same segment in two lists is the same key. */
  key: string;
  span: RecordedSpan;
  name: string;
  startMs: number;
  /** Undefined while it is being written. */
  durationMs: number | undefined;
  mimeType: string;
  /** Its preview picture's name, where the recorder made one (decision 0084). */
  preview?: string;
}

/** [startMs, endMs], wall clock (UTC). */
export type WallRange = readonly [number, number];

/**
 * The aircraft's segments that end within the window before `nowMs`, in time order, the one being
 * written (if any) last, where the browser plays such a segment as it grows (`growingPlays`).
 */
export function windowSegments(
  aircraft: AircraftRecordings,
  nowMs: number,
  growingPlays: (mimeType: string) => boolean = () => true,
): FeedSegment[] {
  const from = nowMs - REWIND_WINDOW_MS;
  const segments: FeedSegment[] = [];
  for (const span of aircraft.spans) {
    if (span.hls !== undefined || span.endMs < from) continue;
    for (const segment of span.segments) {
      const startMs = span.startMs + segment.offsetMs;
      if (startMs + segment.durationMs < from) continue;
      segments.push({
        key: `${span.span}/${segment.name}`,
        span,
        name: segment.name,
        startMs,
        durationMs: segment.durationMs,
        mimeType: span.mimeType,
        ...(segment.preview === undefined ? {} : { preview: segment.preview }),
      });
    }
  }
  segments.sort((a, b) => a.startMs - b.startMs);
  const writing = aircraft.writing;
  const last = segments.at(-1);
  const ownSpan = writing && aircraft.spans.find((s) => s.span === writing.span);
  const mimeType = writing?.mimeType ?? ownSpan?.mimeType ?? aircraft.spans.at(-1)?.mimeType;
  // (A finished segment's last frame lasts until the next one's first: the two may overlap.)
  const after = !last || (writing?.startMs ?? 0) > last.startMs;
  if (writing && mimeType !== undefined && after && growingPlays(mimeType)) {
    const span = ownSpan ?? {
      span: writing.span,
      startMs: writing.startMs - writing.offsetMs,
      endMs: writing.startMs,
      publisher: 'camera',
      mimeType,
      segments: [],
    };
    segments.push({
      key: `${writing.span}/${writing.name}`,
      span,
      name: writing.name,
      startMs: writing.startMs,
      durationMs: undefined,
      mimeType,
    });
  }
  return segments;
}

/**
 * With Amazon IVS: the aircraft's HLS spans that reach into the window before `nowMs`, in time
 * order (a recording still being written reaches now).
 */
export function windowHlsSpans(aircraft: AircraftRecordings, nowMs: number): RecordedSpan[] {
  const from = nowMs - REWIND_WINDOW_MS;
  return aircraft.spans
    .filter((span) => span.hls !== undefined && (span.inProgress === true || span.endMs >= from))
    .sort((a, b) => a.startMs - b.startMs);
}

/**
 * The recorded stretches of IVS's `spans`, none newer than IVS_RECORDING_DELAY_MS before `nowMs`
 * (not yet on S3); one still being written reaches that far.
 */
export function hlsRanges(spans: readonly RecordedSpan[], nowMs: number): WallRange[] {
  const newest = nowMs - IVS_RECORDING_DELAY_MS;
  const ranges: [number, number][] = [];
  for (const span of spans) {
    const end = Math.min(span.inProgress ? newest : span.endMs, newest);
    if (end <= span.startMs) continue;
    const last = ranges.at(-1);
    if (last && span.startMs - last[1] < JOIN_MS) last[1] = Math.max(last[1], end);
    else ranges.push([span.startMs, end]);
  }
  return ranges;
}

/**
 * The IVS span to play for the recorded instant `wallMs`: the newest one that holds it, or else
 * the first after it.
 */
export function hlsSpanAt(
  spans: readonly RecordedSpan[],
  wallMs: number,
): RecordedSpan | undefined {
  const holding = spans.filter(
    (span) => span.startMs <= wallMs && (span.inProgress === true || wallMs < span.endMs),
  );
  return holding.at(-1) ?? spans.find((span) => span.startMs > wallMs);
}

/**
 * The recorded stretches of `segments`, joined where they nearly touch; the one being written
 * reaches `writingEndMs` (what of it is known to be readable, at least its start).
 */
export function recordedRanges(
  segments: readonly FeedSegment[],
  writingEndMs: number,
): WallRange[] {
  const ranges: [number, number][] = [];
  for (const segment of segments) {
    const end =
      segment.durationMs === undefined
        ? Math.max(segment.startMs, writingEndMs)
        : segment.startMs + segment.durationMs;
    const last = ranges.at(-1);
    if (last && segment.startMs - last[1] < JOIN_MS) last[1] = Math.max(last[1], end);
    else ranges.push([segment.startMs, end]);
  }
  return ranges;
}

/**
 * Where a viewer asking for `targetMs` lands: there when it is recorded; the start of the next
 * stretch when it falls before or between them; undefined when nothing is recorded at or after it
 * (past the newest recorded instant: that is live).
 */
export function playableAt(targetMs: number, ranges: readonly WallRange[]): number | undefined {
  for (const [start, end] of ranges) {
    if (targetMs < start) return start;
    if (targetMs < end) return targetMs;
  }
  return undefined;
}

/**
 * Where `targetMs` lands short of the newest recorded instant: the instant, or the next recorded
 * one (`playableAt`); undefined at or past the newest.
 */
export function landingIn(targetMs: number, ranges: readonly WallRange[]): number | undefined {
  const landing = playableAt(targetMs, ranges);
  const newest = newestRecorded(ranges);
  return landing === undefined || (newest !== undefined && landing >= newest) ? undefined : landing;
}

/** The newest recorded instant, or undefined before anything is recorded. */
export function newestRecorded(ranges: readonly WallRange[]): number | undefined {
  return ranges.at(-1)?.[1];
}

/** `0:32`, `12:05`, `1:00:00`: how far behind live, in whole seconds. */
export function formatBehind(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0
    ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`
    : `${minutes}:${seconds}`;
}

/** The segment that holds `atMs`, if one does (the one being written reaches `writingEndMs`). */
export function segmentAt(
  segments: readonly FeedSegment[],
  atMs: number,
  writingEndMs: number,
): FeedSegment | undefined {
  return segments.find(
    (segment) =>
      segment.startMs <= atMs &&
      atMs <
        (segment.durationMs === undefined ? writingEndMs : segment.startMs + segment.durationMs),
  );
}
