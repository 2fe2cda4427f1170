/**
 * Counts the frames a video element shows and how old each one is when it is shown, from
 * `requestVideoFrameCallback` metadata: `presentedFrames` and, for WebRTC frames,
 * `expectedDisplayTime − captureTime` (both on the page's clock). It needs nothing from the SDK
 * or the peer connection, so it works the same with any stage. Never reads the picture itself.
 */
import type { FrameWindow } from './playback-stats';

export class FrameSampler {
  private handle: number | undefined;
  private lastPresented: number | undefined;
  private frames = 0;
  private glassToGlassMs: number[] = [];
  private windowStart = performance.now();
  private stopped = false;

  constructor(private readonly video: HTMLVideoElement) {
    // Browsers without it (Firefox before 132) still get every other figure.
    if ('requestVideoFrameCallback' in video) this.watch();
  }

  /** The frames since the last call, and starts a new window. */
  take(): FrameWindow {
    const now = performance.now();
    const window: FrameWindow = {
      frames: this.frames,
      elapsedMs: now - this.windowStart,
      glassToGlassMs: this.glassToGlassMs,
    };
    this.frames = 0;
    this.glassToGlassMs = [];
    this.windowStart = now;
    return window;
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
