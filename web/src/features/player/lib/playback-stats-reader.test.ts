import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PlaybackFigures } from './playback-stats';
import { PlaybackStatsReader, STATS_INTERVAL_MS } from './playback-stats-reader';
import type { StageStream } from './stage-sdk';

/** A video element as far as the reader uses it: its playback quality and its frame callbacks. */
class FakeVideo {
  totalVideoFrames = 0;
  droppedVideoFrames = 0;
  readonly frameCallbacks = new Map<number, VideoFrameRequestCallback>();
  requested = 0;
  private nextHandle = 1;

  getVideoPlaybackQuality() {
    return { totalVideoFrames: this.totalVideoFrames, droppedVideoFrames: this.droppedVideoFrames };
  }

  requestVideoFrameCallback(callback: VideoFrameRequestCallback): number {
    this.requested += 1;
    this.frameCallbacks.set(this.nextHandle, callback);
    return this.nextHandle++;
  }

  cancelVideoFrameCallback(handle: number): void {
    this.frameCallbacks.delete(handle);
  }

  /** Presents `count` frames, one callback round each, as the browser would. */
  present(count: number): void {
    for (let frame = 0; frame < count; frame += 1) {
      this.totalVideoFrames += 1;
      const callbacks = [...this.frameCallbacks.values()];
      this.frameCallbacks.clear();
      for (const callback of callbacks) {
        callback(performance.now(), {
          presentedFrames: this.totalVideoFrames,
          // Shown 30 ms after its capture, on the page's clock.
          expectedDisplayTime: 10_030,
          captureTime: 10_000,
        } as VideoFrameCallbackMetadata);
      }
    }
  }
}

/** A stream whose stats report one video receiver, a little further on at every reading. */
function fakeStream(): StageStream {
  let at = 0;
  return {
    requestRTCStats: () => {
      at += STATS_INTERVAL_MS;
      const inbound = { id: 'IT01V1', type: 'inbound-rtp', kind: 'video', timestamp: at };
      return Promise.resolve(new Map([[inbound.id, inbound]]) as unknown as RTCStatsReport);
    },
  } as unknown as StageStream;
}

let video: FakeVideo;
let figures: PlaybackFigures[];
let reader: PlaybackStatsReader | undefined;

function startReader(frameDetail: boolean): PlaybackStatsReader {
  reader = new PlaybackStatsReader({
    video: video as unknown as HTMLVideoElement,
    stream: fakeStream(),
    onFigures: (next) => figures.push(next),
    frameDetail,
  });
  return reader;
}

beforeEach(() => {
  vi.useFakeTimers();
  video = new FakeVideo();
  figures = [];
});

afterEach(() => {
  reader?.stop();
  reader = undefined;
  vi.useRealTimers();
});

describe('PlaybackStatsReader', () => {
  it('reads the frames shown once a second from the playback quality, with no frame callback, while the live stats are closed', async () => {
    startReader(false);
    video.totalVideoFrames = 31;
    video.droppedVideoFrames = 1;
    await vi.advanceTimersByTimeAsync(STATS_INTERVAL_MS);
    expect(figures.at(-1)?.shownFps).toBeCloseTo(30);
    expect(figures.at(-1)?.glassToGlassMs).toBeUndefined();
    expect(video.requested).toBe(0);
  });

  it('watches every frame only while the live stats are open, with its glass to glass', async () => {
    const stats = startReader(false);
    stats.setFrameDetail(true);
    video.present(30);
    await vi.advanceTimersByTimeAsync(STATS_INTERVAL_MS);
    expect(figures.at(-1)?.shownFps).toBeCloseTo(30);
    expect(figures.at(-1)?.glassToGlassMs).toBe(30);

    stats.setFrameDetail(false);
    expect(video.frameCallbacks.size).toBe(0);
    const requested = video.requested;
    video.present(24);
    await vi.advanceTimersByTimeAsync(STATS_INTERVAL_MS);
    expect(figures.at(-1)?.shownFps).toBeCloseTo(24);
    expect(video.requested).toBe(requested);
  });

  it('leaves no timer and no frame callback behind when it stops', async () => {
    const stats = startReader(true);
    expect(video.frameCallbacks.size).toBe(1);
    stats.stop();
    expect(video.frameCallbacks.size).toBe(0);
    await vi.advanceTimersByTimeAsync(STATS_INTERVAL_MS * 3);
    expect(figures).toEqual([]);
  });

  it('shows no frame rate where the browser cannot count frames, rather than a rate of zero', async () => {
    const bare = { getVideoPlaybackQuality: undefined } as unknown as HTMLVideoElement;
    reader = new PlaybackStatsReader({
      video: bare,
      stream: fakeStream(),
      onFigures: (next) => figures.push(next),
      frameDetail: false,
    });
    await vi.advanceTimersByTimeAsync(STATS_INTERVAL_MS);
    expect(figures.at(-1)?.shownFps).toBeUndefined();
  });
});
