/**
 * The live player's rewind picture (decision 0088): the aircraft's recording of the last hour
 * through Media Source Extensions, on one timeline in wall-clock time (media time 0 is `anchorMs`),
 * so an instant is a seek and the way back to the newest recorded frame never changes source.
 *
 * Each segment is a whole file starting on a key frame, appended at its start with
 * `timestampOffset` (as the Recordings page does, decision 0073); the one being written is read as
 * it grows (decision 0085) and appended in pieces, each piece from where the last stopped. Only the
 * segment under the playhead and those up to AHEAD_MS after it are fetched; media more than
 * KEEP_BEHIND_MS behind the playhead is removed, a segment at a time, so an hour of watching stays
 * within the browser's buffer quota. Gaps between recorded stretches, and holes inside one (seconds
 * the recorder got no pictures for), are stepped over.
 */
import type { SegmentBytes } from '../api/growing-segment';
import { isStalled, pastHole, rangesOf } from './buffered-holes';
import type { FeedSegment } from './rewind-timeline';

/** Fetched ahead of the playhead. */
const AHEAD_MS = 12_000;
/** How often the segment being written is read again, when the playhead is at it. */
const GROW_POLL_MS = 400;
/** How often the list is read again while the segment being written yields nothing. */
const RELIST_MS = 1_500;
/** How often the list is read again when there is nothing to read (a newer segment may exist). */
const IDLE_RELIST_MS = 2_500;
/** Kept behind the playhead; older media is removed from the buffer. */
const KEEP_BEHIND_MS = 30_000;
/** A playhead stalled this long at a hole, or at the end of a stretch, moves on past it. */
const STALL_JUMP_MS = 400;

export interface FeedSource {
  read(segment: FeedSegment, fromByte: number, signal: AbortSignal): Promise<SegmentBytes>;
  /** The window's segments as the API lists them now. */
  list(signal: AbortSignal): Promise<FeedSegment[]>;
}

interface Appended {
  bytes: number;
  complete: boolean;
}

const endOf = (segment: FeedSegment) =>
  segment.durationMs === undefined
    ? Number.POSITIVE_INFINITY
    : segment.startMs + segment.durationMs;

/** Segments are known by their start: the one being written keeps its key once finished. */
const keyOf = (segment: FeedSegment) => `${segment.span.span}@${segment.startMs}`;

export class RecordingFeed {
  private segments: FeedSegment[];
  private readonly appended = new Map<string, Appended>();
  /** The segment whose bytes the SourceBuffer's parser is in the middle of. */
  private current: string | undefined;
  private readonly abort = new AbortController();
  private readonly objectUrl: string;
  private wake: (() => void) | undefined;
  private lastListMs = 0;
  private stalledSince: number | undefined;
  /** The viewer paused the picture (a pause event): a paused video is then not stalled. */
  private pausedByViewer = false;

  constructor(
    private readonly video: HTMLVideoElement,
    readonly anchorMs: number,
    segments: FeedSegment[],
    private readonly source: FeedSource,
    private readonly onFailed: (error: unknown) => void,
    /** Each list the feed reads (the scrubber draws it). */
    private readonly onSegments: (segments: FeedSegment[]) => void = () => undefined,
  ) {
    this.segments = segments;
    this.lastListMs = Date.now();
    const media = new MediaSource();
    this.objectUrl = URL.createObjectURL(media);
    video.src = this.objectUrl;
    media.addEventListener(
      'sourceopen',
      () => {
        const first = segments[0];
        if (!first) return;
        // Room to seek anywhere up to well past now (a finite duration makes every instant
        // seekable before its media is there; the seek completes when it is).
        media.duration = (Date.now() - anchorMs) / 1000 + 2 * 3600;
        const buffer = media.addSourceBuffer(first.mimeType);
        void this.run(buffer, first.mimeType).catch((error: unknown) => {
          if (!this.abort.signal.aborted) onFailed(error);
        });
      },
      { once: true },
    );
    for (const event of ['seeking', 'waiting', 'timeupdate'] as const) {
      video.addEventListener(event, () => this.nudge(), { signal: this.abort.signal });
    }
    video.addEventListener('pause', () => (this.pausedByViewer = true), {
      signal: this.abort.signal,
    });
    video.addEventListener('play', () => (this.pausedByViewer = false), {
      signal: this.abort.signal,
    });
  }

  /** The wall-clock instant (UTC ms) the picture shows. */
  get shownMs(): number {
    return this.anchorMs + this.video.currentTime * 1000;
  }

  /** Moves the picture to `wallMs` (a recorded instant: rewind-timeline.ts#playableAt). */
  seek(wallMs: number): void {
    this.video.currentTime = Math.max(0, (wallMs - this.anchorMs) / 1000);
    this.stalledSince = undefined;
    this.nudge();
  }

  /** A newer list of the window's segments (the player reads it now and then). */
  setSegments(segments: FeedSegment[]): void {
    this.segments = segments;
    this.nudge();
  }

  dispose(): void {
    this.abort.abort();
    this.wake?.();
    this.video.removeAttribute('src');
    this.video.load();
    URL.revokeObjectURL(this.objectUrl);
  }

  private nudge(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = window.setTimeout(() => this.nudge(), ms);
      this.wake = () => {
        window.clearTimeout(timer);
        resolve();
      };
    });
  }

  /** The next segment to read: under the playhead or ahead of it, not yet whole in the buffer. */
  private nextToRead(): FeedSegment | undefined {
    const playhead = this.shownMs;
    return this.segments.find(
      (segment) =>
        endOf(segment) > playhead &&
        segment.startMs <= playhead + AHEAD_MS &&
        !this.appended.get(keyOf(segment))?.complete,
    );
  }

  private async run(buffer: SourceBuffer, firstMimeType: string): Promise<void> {
    const signal = this.abort.signal;
    let mimeType = firstMimeType;
    while (!signal.aborted) {
      this.stepOverGap();
      const segment = this.nextToRead();
      if (!segment) {
        if (Date.now() - this.lastListMs > IDLE_RELIST_MS) await this.relist();
        else await this.pause(GROW_POLL_MS);
        continue;
      }
      const key = keyOf(segment);
      // A segment left half-appended (the viewer went elsewhere) is read again from its start.
      if (this.current !== key) this.appended.delete(key);
      const had = this.appended.get(key) ?? { bytes: 0, complete: false };
      const { bytes, complete, gone } = await this.source.read(segment, had.bytes, signal);
      if (signal.aborted) return;
      if (gone) {
        // Its growing bytes are gone: the finished file, read whole, replaces what was appended.
        this.appended.delete(key);
        this.current = undefined;
        await this.relist();
        continue;
      }
      if (bytes.byteLength > 0) {
        if (this.current !== key) {
          buffer.abort();
          if (segment.mimeType !== mimeType && 'changeType' in buffer) {
            buffer.changeType(segment.mimeType);
            mimeType = segment.mimeType;
          }
          buffer.timestampOffset = (segment.startMs - this.anchorMs) / 1000;
          this.current = key;
        }
        await appendTo(buffer, bytes);
      }
      this.appended.set(key, { bytes: had.bytes + bytes.byteLength, complete });
      if (complete) {
        this.current = undefined;
        if (segment.durationMs === undefined) await this.relist();
        this.removeBehind(buffer);
      } else if (bytes.byteLength === 0) {
        if (Date.now() - this.lastListMs > RELIST_MS) await this.relist();
        else await this.pause(GROW_POLL_MS);
      } else {
        await this.pause(GROW_POLL_MS);
      }
    }
  }

  private async relist(): Promise<void> {
    this.lastListMs = Date.now();
    this.segments = await this.source.list(this.abort.signal);
    this.onSegments(this.segments);
  }

  /**
   * Whole segments that ended more than KEEP_BEHIND_MS before the playhead leave the buffer (and
   * are read again if the viewer goes back to them).
   */
  private removeBehind(buffer: SourceBuffer): void {
    const before = this.shownMs - KEEP_BEHIND_MS;
    const gone = this.segments.filter(
      (segment) => endOf(segment) <= before && this.appended.get(keyOf(segment))?.complete,
    );
    const last = gone.at(-1);
    if (!last || buffer.updating) return;
    for (const segment of gone) this.appended.delete(keyOf(segment));
    buffer.remove(0, (endOf(last) - this.anchorMs) / 1000);
  }

  /**
   * A playhead stalled (playing short of data, a seek not completing, or autoplay never given
   * enough data to begin) for STALL_JUMP_MS moves on: past a hole in what is appended that
   * nothing still to read fills (buffered-holes.ts), or, at the end of a recorded stretch, to the
   * next stretch's start (its media is read from there).
   */
  private stepOverGap(): void {
    const video = this.video;
    const stalled = isStalled(video, this.pausedByViewer);
    if (!stalled) {
      this.stalledSince = undefined;
      return;
    }
    this.stalledSince ??= performance.now();
    if (performance.now() - this.stalledSince < STALL_JUMP_MS) return;
    const to = this.pastHole() ?? this.nextStretch();
    if (to === undefined) return;
    this.stalledSince = undefined;
    video.currentTime = to;
  }

  /**
   * Past a hole in the buffered media, where nothing still to read lies in it: no segment not
   * yet appended, nor the rest of the one being appended (read in order, it adds media only after
   * what is buffered: a hole before that is the recording's own).
   */
  private pastHole(): number | undefined {
    const buffered = rangesOf(this.video.buffered);
    const bufferedEnd = buffered.at(-1)?.[1] ?? 0;
    const mediaS = (wallMs: number) => (wallMs - this.anchorMs) / 1000;
    const pending = this.segments.flatMap((segment) => {
      const appended = this.appended.get(keyOf(segment));
      if (appended?.complete) return [];
      const start = mediaS(segment.startMs);
      const from = appended ? Math.max(start, bufferedEnd) : start;
      return [[from, mediaS(endOf(segment))] as const];
    });
    return pastHole(this.video.currentTime, buffered, pending);
  }

  /** The next stretch's start, where nothing between the playhead and it is still to read. */
  private nextStretch(): number | undefined {
    const playhead = this.shownMs;
    const next = this.segments.find((segment) => segment.startMs > playhead + 50);
    if (!next) return undefined;
    const between = this.segments.some(
      (segment) =>
        endOf(segment) > playhead + 50 &&
        segment.startMs < next.startMs &&
        !this.appended.get(keyOf(segment))?.complete,
    );
    return between ? undefined : (next.startMs - this.anchorMs) / 1000 + 0.001;
  }
}

function appendTo(buffer: SourceBuffer, bytes: ArrayBuffer): Promise<void> {
  return new Promise((resolve, reject) => {
    buffer.addEventListener('updateend', () => resolve(), { once: true });
    buffer.addEventListener('error', () => reject(new Error('append failed')), { once: true });
    buffer.appendBuffer(bytes);
  });
}
