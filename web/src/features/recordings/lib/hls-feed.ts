/**
 * The live player's rewind picture with Amazon IVS (decision 0088, "Amazon IVS"): IVS's recordings
 * are HLS on S3, one playlist per recording (a span), played with hls.js (hls-playback.ts). The
 * span that holds an instant plays with its media time 0 at the span's start, so the instant
 * `wallMs` is media time `wallMs - span.startMs`. A span still being recorded is a growing
 * playlist without its end: hls.js reads it again about once a segment, and a seek anywhere in
 * what it lists plays (past its end, the video holds at the end until the next segment is
 * listed: the media's duration is the playlist's). At a span's end, the next span plays from its start. Same surface as
 * RecordingFeed (shownMs, seek, dispose), so the rewind does not care which it has.
 */
import type { RecordedSpan } from '../api/recordings';
import { playHls } from './hls-playback';
import { hlsSpanAt } from './rewind-timeline';

/** How often the list is read again while behind (a recording begins, or one ends). */
const RELIST_MS = 10_000;
/** A start hls.js did not keep by more than this is sought once the media is there. */
const START_TOLERANCE_S = 0.5;

export interface HlsFeedSource {
  /** The window's IVS spans as the API lists them now. */
  list(signal: AbortSignal): Promise<RecordedSpan[]>;
}

interface Playing {
  span: RecordedSpan;
  stop: () => void;
  /** Where it was asked to start, in media seconds, until its media is there. */
  startS: number;
  loaded: boolean;
}

export class HlsFeed {
  private spans: RecordedSpan[];
  private playing: Playing | undefined;
  private requestedMs = Date.now();
  private readonly abort = new AbortController();

  constructor(
    private readonly video: HTMLVideoElement,
    spans: RecordedSpan[],
    private readonly source: HlsFeedSource,
    private readonly onFailed: (error: unknown) => void,
    /** Each list the feed reads (the scrubber draws it). */
    private readonly onSpans: (spans: RecordedSpan[]) => void = () => undefined,
  ) {
    this.spans = spans;
    const signal = this.abort.signal;
    video.addEventListener('loadedmetadata', () => this.loaded(), { signal });
    video.addEventListener('ended', () => this.next(), { signal });
    const timer = window.setInterval(() => void this.relist(), RELIST_MS);
    signal.addEventListener('abort', () => window.clearInterval(timer));
  }

  /** The wall-clock instant (UTC ms) the picture shows. */
  get shownMs(): number {
    const playing = this.playing;
    if (!playing) return this.requestedMs;
    const mediaS = playing.loaded ? this.video.currentTime : playing.startS;
    return playing.span.startMs + mediaS * 1000;
  }

  /** Moves the picture to `wallMs` (a recorded instant: rewind-timeline.ts#playableAt). */
  seek(wallMs: number): void {
    const span = hlsSpanAt(this.spans, wallMs);
    if (!span) return;
    this.requestedMs = wallMs;
    const mediaS = Math.max(0, (wallMs - span.startMs) / 1000);
    const playing = this.playing;
    if (playing?.span.span !== span.span) this.start(span, mediaS);
    else if (playing.loaded) this.video.currentTime = mediaS;
    // Still loading: the start is sought once its media is there.
    else playing.startS = mediaS;
  }

  dispose(): void {
    this.abort.abort();
    this.playing?.stop();
    this.playing = undefined;
  }

  private start(span: RecordedSpan, startS: number): void {
    this.playing?.stop();
    if (span.hls === undefined) return;
    const stop = playHls(
      this.video,
      span.hls,
      () => {
        if (!this.abort.signal.aborted) this.onFailed(new Error(`${span.hls} cannot be played`));
      },
      { startS },
    );
    this.playing = { span, stop, startS, loaded: false };
  }

  private loaded(): void {
    const playing = this.playing;
    if (!playing || playing.loaded) return;
    playing.loaded = true;
    if (Math.abs(this.video.currentTime - playing.startS) > START_TOLERANCE_S) {
      this.video.currentTime = playing.startS;
    }
  }

  /** The span that played to its end gives way to the next one, from its start. */
  private next(): void {
    const playing = this.playing;
    if (!playing) return;
    const after = this.spans.find((span) => span.startMs > playing.span.startMs);
    if (after) this.start(after, 0);
  }

  private async relist(): Promise<void> {
    try {
      this.spans = await this.source.list(this.abort.signal);
    } catch {
      return; // the spans it has stay; the next read may do better
    }
    if (!this.abort.signal.aborted) this.onSpans(this.spans);
  }
}
