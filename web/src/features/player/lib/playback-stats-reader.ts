/**
 * Reads the figures of one video stream once a second, while it is shown: the stream's
 * `requestRTCStats()` (public SDK API) and the frames its video element showed. Plain TypeScript:
 * `usePlaybackStats` joins it to a page.
 *
 * The frames are counted per frame (`requestVideoFrameCallback`, which glass to glass needs) only
 * while the live stats are open (`setFrameDetail(true)`); otherwise once a second from the
 * element's playback quality, which is all the connection quality needs.
 */
import { FrameSampler, PlaybackQualityCounter, type FrameCounter } from './frame-sampler';
import {
  playbackFigures,
  readReceiveSample,
  type PlaybackFigures,
  type ReceiveSample,
} from './playback-stats';
import type { StageStream } from './stage-sdk';

/** How often the figures are read and shown. */
export const STATS_INTERVAL_MS = 1_000;

export interface PlaybackStatsReaderOptions {
  video: HTMLVideoElement;
  stream: StageStream;
  /** Every reading's figures, once a second. */
  onFigures: (figures: PlaybackFigures) => void;
  /** Counts every frame with its glass to glass (the live stats are open). */
  frameDetail: boolean;
}

export class PlaybackStatsReader {
  private frames: FrameCounter;
  private frameDetail: boolean;
  private previous: ReceiveSample | undefined;
  private reading = false;
  private stopped = false;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(private readonly options: PlaybackStatsReaderOptions) {
    this.frameDetail = options.frameDetail;
    this.frames = this.frameCounter();
    this.timer = setInterval(() => void this.read(), STATS_INTERVAL_MS);
  }

  /** Counts frame by frame from now on, or only once a second; the window starts afresh. */
  setFrameDetail(frameDetail: boolean): void {
    if (this.stopped || frameDetail === this.frameDetail) return;
    this.frameDetail = frameDetail;
    this.frames.stop();
    this.frames = this.frameCounter();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.frames.stop();
  }

  private frameCounter(): FrameCounter {
    const { video } = this.options;
    return this.frameDetail ? new FrameSampler(video) : new PlaybackQualityCounter(video);
  }

  private async read(): Promise<void> {
    if (this.reading) return; // a slow getStats never piles up
    this.reading = true;
    try {
      const report = await this.options.stream.requestRTCStats();
      if (this.stopped) return;
      const sample = report && readReceiveSample(report);
      const frames = this.frames.take();
      if (!sample) return;
      this.options.onFigures(playbackFigures(this.previous, sample, frames));
      this.previous = sample;
    } catch {
      // A stream that is going away has no stats; the next stream starts afresh.
    } finally {
      this.reading = false;
    }
  }
}
