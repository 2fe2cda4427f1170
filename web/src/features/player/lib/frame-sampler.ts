/**
 * Two ways to count the frames a video element shows, for the figures read once a second:
 * - `FrameSampler` watches every frame through `requestVideoFrameCallback`: `presentedFrames`
 *   and, for WebRTC frames, `expectedDisplayTime − captureTime` (both on the page's clock). It
 *   runs a callback per frame, so it runs only while the live stats are open, the one place that
 *   shows glass to glass.
 * - `PlaybackQualityCounter` reads `getVideoPlaybackQuality()` once per window: the frame rate
 *   the connection quality needs, at no cost per frame.
 * Neither needs anything from the SDK or the peer connection, and neither reads the picture
 * (decision 0061).
 */
import type { FrameWindow } from './playback-stats';

export interface FrameCounter {
  /** The frames since the last call (undefined where the browser cannot count them); starts a new window. */
  take(): FrameWindow | undefined;
  stop(): void;
}

export class FrameSampler implements FrameCounter {
  private handle: number | undefined;
  private lastPresented: number | undefined;
  private frames = 0;
  private glassToGlassMs: number[] = [];
  private windowStart = performance.now();
  private stopped = false;
  // Browsers without it (Firefox before 132) still get every other figure.
  private readonly supported: boolean;

  constructor(private readonly video: HTMLVideoElement) {
    this.supported = 'requestVideoFrameCallback' in video;
    if (this.supported) this.watch();
  }

  take(): FrameWindow | undefined {
    const now = performance.now();
    const window: FrameWindow = {
      frames: this.frames,
      elapsedMs: now - this.windowStart,
      glassToGlassMs: this.glassToGlassMs,
    };
    this.frames = 0;
    this.glassToGlassMs = [];
    this.windowStart = now;
    return this.supported ? window : undefined;
  }

  stop(): void {
    this.stopped = true;
    if (this.handle !== undefined) this.video.cancelVideoFrameCallback(this.handle);
  }

  private watch(): void {
    this.handle = this.video.requestVideoFrameCallback(this.onFrame);
  }

  private readonly onFrame = (_now: number, metadata: VideoFrameCallbackMetadata): void => {
    if (this.stopped) return;
    const presented = metadata.presentedFrames;
    // A new source starts its count again: count the frame itself.
    const shown =
      this.lastPresented === undefined || presented < this.lastPresented
        ? 1
        : presented - this.lastPresented;
    this.lastPresented = presented;
    this.frames += shown;
    if (metadata.captureTime !== undefined && metadata.captureTime > 0) {
      // Shown before it was captured: the browser's estimate of the sender's clock is off (it is
      // while the first sender reports come in). Such a frame says nothing; it is left out.
      const glassToGlass = metadata.expectedDisplayTime - metadata.captureTime;
      if (glassToGlass >= 0) this.glassToGlassMs.push(glassToGlass);
    }
    this.watch();
  };
}

export class PlaybackQualityCounter implements FrameCounter {
  private last: PlaybackCounts | undefined;
  private windowStart = performance.now();

  constructor(private readonly video: HTMLVideoElement) {
    this.last = this.countsSoFar();
  }

  take(): FrameWindow | undefined {
    const now = performance.now();
    const counts = this.countsSoFar();
    const last = this.last;
    const elapsedMs = now - this.windowStart;
    this.last = counts;
    this.windowStart = now;
    // None counted at all is not known, not zero: Firefox counts no frames here for a WebRTC
    // video (totalVideoFrames stays 0 while it plays), and before the first frame nothing is
    // known either. The connection quality then goes by the frames decoded (playback-stats.ts).
    if (counts === undefined || counts.total === 0) return undefined;
    // Counted from the window's start, or from zero where the element counted none then.
    const before = last !== undefined && last.total > 0 ? last.shown : 0;
    // A new source starts its count again: the window then counts from zero.
    const frames = counts.shown >= before ? counts.shown - before : counts.shown;
    return { frames, elapsedMs, glassToGlassMs: [] };
  }

  stop(): void {}

  /** Frames decoded so far, and those shown: decoded less those dropped before they were shown. */
  private countsSoFar(): PlaybackCounts | undefined {
    if (typeof this.video.getVideoPlaybackQuality !== 'function') return undefined;
    const quality = this.video.getVideoPlaybackQuality();
    return {
      total: quality.totalVideoFrames,
      shown: quality.totalVideoFrames - quality.droppedVideoFrames,
    };
  }
}

interface PlaybackCounts {
  total: number;
  shown: number;
}
