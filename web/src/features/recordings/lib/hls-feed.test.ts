/**
 * The rewind's feed of IVS recordings (hls-feed.ts), with hls.js's playback stubbed: the span
 * holding an instant plays from the instant's media time; a seek within it moves the video; a
 * finished span gives way to the next at its end; the instant shown is in wall-clock time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RecordedSpan } from '../api/recordings';
import { HlsFeed } from './hls-feed';

const playHls = vi.hoisted(() => vi.fn());
vi.mock('./hls-playback', () => ({ playHls }));

const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);

function span(name: string, startMs: number, endMs: number, inProgress = false): RecordedSpan {
  return {
    span: `st-One/${name}`,
    startMs,
    endMs,
    publisher: 'encoder',
    mimeType: 'application/vnd.apple.mpegurl',
    segments: [],
    hls: `/api/recordings/ivs/N743AS/st-One/${name}/multivariant.m3u8`,
    ...(inProgress ? { inProgress: true as const } : {}),
  };
}

const FIRST = span('PaRt1', T0, T0 + 600_000);
const SECOND = span('PaRt2', T0 + 660_000, T0 + 700_000, true);
const stops: ReturnType<typeof vi.fn>[] = [];
let feed: HlsFeed;
let video: HTMLVideoElement;

beforeEach(() => {
  stops.length = 0;
  playHls.mockReset().mockImplementation(() => {
    const stop = vi.fn();
    stops.push(stop);
    return stop;
  });
  video = document.createElement('video');
  feed = new HlsFeed(video, [FIRST, SECOND], { list: () => Promise.resolve([]) }, vi.fn());
});
afterEach(() => feed.dispose());

describe('the rewind over IVS recordings', () => {
  it("plays the span holding the instant from the instant's media time, and seeks within it", () => {
    feed.seek(T0 + 90_000);
    expect(playHls).toHaveBeenCalledWith(
      video,
      FIRST.hls,
      expect.any(Function),
      expect.objectContaining({ startS: 90 }),
    );
    expect(feed.shownMs).toBe(T0 + 90_000);
    video.dispatchEvent(new Event('loadedmetadata'));
    expect(video.currentTime).toBe(90);

    feed.seek(T0 + 30_000);
    expect(video.currentTime).toBe(30);
    expect(feed.shownMs).toBe(T0 + 30_000);
    expect(playHls).toHaveBeenCalledTimes(1);
  });

  it('plays the next span from its start once one ends, and the one still recorded past its listed end', () => {
    feed.seek(T0 + 599_000);
    video.dispatchEvent(new Event('loadedmetadata'));
    video.dispatchEvent(new Event('ended'));
    expect(stops[0]).toHaveBeenCalled();
    expect(playHls).toHaveBeenLastCalledWith(
      video,
      SECOND.hls,
      expect.any(Function),
      expect.objectContaining({ startS: 0 }),
    );
    expect(feed.shownMs).toBe(SECOND.startMs);

    // Still being recorded: an instant after the list's end is in it (it has grown since).
    feed.seek(SECOND.endMs + 20_000);
    video.dispatchEvent(new Event('loadedmetadata'));
    expect(video.currentTime).toBe(60);
    expect(playHls).toHaveBeenCalledTimes(2);
  });

  it('stops its player when disposed', () => {
    feed.seek(T0 + 1_000);
    feed.dispose();
    expect(stops[0]).toHaveBeenCalled();
  });
});
