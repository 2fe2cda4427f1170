import { afterEach, describe, expect, it, vi } from 'vitest';
import { PlaybackQualityCounter } from './frame-sampler';

/** A video element whose playback quality reads `quality()` (jsdom has none of its own). */
function videoCounting(quality: () => { totalVideoFrames: number; droppedVideoFrames: number }) {
  const video = document.createElement('video');
  Object.defineProperty(video, 'getVideoPlaybackQuality', {
    value: () => ({ ...quality(), corruptedVideoFrames: 0, creationTime: 0 }),
  });
  return video;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('counting the frames shown from the playback quality', () => {
  it('counts the frames shown in each window: decoded less dropped', () => {
    vi.useFakeTimers();
    let total = 100;
    let dropped = 2;
    const counter = new PlaybackQualityCounter(
      videoCounting(() => ({ totalVideoFrames: total, droppedVideoFrames: dropped })),
    );
    total = 130;
    dropped = 3;
    vi.advanceTimersByTime(1_000);
    expect(counter.take()).toEqual({ frames: 29, elapsedMs: 1_000, glassToGlassMs: [] });
  });

  it('says nothing, never zero, where the element counts no frames (Firefox, a WebRTC video)', () => {
    // Firefox 140's getVideoPlaybackQuality() for a playing WebRTC video: both counts stay 0.
    const counter = new PlaybackQualityCounter(
      videoCounting(() => ({ totalVideoFrames: 0, droppedVideoFrames: 0 })),
    );
    expect(counter.take()).toBeUndefined();
    expect(counter.take()).toBeUndefined();
  });

  it('counts the first frames from zero once the element starts counting', () => {
    let total = 0;
    const counter = new PlaybackQualityCounter(
      videoCounting(() => ({ totalVideoFrames: total, droppedVideoFrames: 0 })),
    );
    expect(counter.take()).toBeUndefined();
    total = 12;
    expect(counter.take()?.frames).toBe(12);
  });

  it('counts zero for a picture that froze after it was counted', () => {
    const counter = new PlaybackQualityCounter(
      videoCounting(() => ({ totalVideoFrames: 250, droppedVideoFrames: 0 })),
    );
    expect(counter.take()?.frames).toBe(0);
  });
});
