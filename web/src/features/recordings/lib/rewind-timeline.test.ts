import { describe, expect, it } from 'vitest';
import type { AircraftRecordings, RecordedSpan } from '../api/recordings';
import {
  formatBehind,
  growingSegmentPlays,
  hlsRanges,
  hlsSpanAt,
  IVS_RECORDING_DELAY_MS,
  newestRecorded,
  landingIn,
  playableAt,
  recordedRanges,
  REWIND_WINDOW_MS,
  windowHlsSpans,
  windowSegments,
} from './rewind-timeline';

const NOW = Date.UTC(2026, 10, 29, 10, 0, 0);
const MIME = 'video/webm; codecs="vp8,opus"';

/** A span of 4 s segments from `startMs`, `count` of them. */
function span(startMs: number, count: number): RecordedSpan {
  return {
    span: String(startMs).padStart(13, '0'),
    startMs,
    endMs: startMs + count * 4_000,
    publisher: 'camera',
    mimeType: MIME,
    segments: Array.from({ length: count }, (_, index) => ({
      name: `${String(index * 4_000).padStart(10, '0')}-4000.webm`,
      offsetMs: index * 4_000,
      durationMs: 4_000,
    })),
  };
}

describe('the rewind over the last hour', () => {
  it('takes the segments that end within the hour, in time order, and the one being written last', () => {
    const old = span(NOW - REWIND_WINDOW_MS - 20_000, 3); // ends 8 s before the window
    const recent = span(NOW - 20_000, 4); // 16 s, then the one being written
    const aircraft: AircraftRecordings = {
      stageId: 'N743AS',
      spans: [recent, old],
      writing: {
        span: recent.span,
        name: '0000016000.part',
        offsetMs: 16_000,
        startMs: NOW - 4_000,
      },
    };
    const segments = windowSegments(aircraft, NOW);
    expect(segments.map((s) => s.startMs - NOW)).toEqual([
      -20_000, -16_000, -12_000, -8_000, -4_000,
    ]);
    expect(segments.at(-1)).toMatchObject({
      durationMs: undefined,
      mimeType: MIME,
      name: '0000016000.part',
    });
  });

  it('takes a segment being written whose start overlaps the last one by a frame', () => {
    const recent = span(NOW - 8_000, 2);
    const writing = { span: recent.span, name: 'x.part', offsetMs: 7_967, startMs: NOW - 33 };
    const segments = windowSegments({ stageId: 'N743AS', spans: [recent], writing }, NOW);
    expect(segments).toHaveLength(3);
  });

  it("leaves out the segment being written where the browser cannot play it as it grows (Firefox's WebM)", () => {
    const recent = span(NOW - 8_000, 2);
    const writing = { span: recent.span, name: 'x.part', offsetMs: 8_000, startMs: NOW };
    const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
    const chromium =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36';
    const plays = (agent: string) => (mimeType: string) => growingSegmentPlays(mimeType, agent);
    const aircraft = { stageId: 'N743AS', spans: [recent], writing };
    expect(windowSegments(aircraft, NOW, plays(firefox))).toHaveLength(2);
    expect(windowSegments(aircraft, NOW, plays(chromium))).toHaveLength(3);
    expect(growingSegmentPlays('video/mp4; codecs="avc1.42e01f,opus"', firefox)).toBe(true);
  });

  it('draws gaps to scale and joins what nearly touches', () => {
    const a = span(NOW - 60_000, 2); // -60 .. -52
    const b = span(NOW - 51_500, 1); // 0.5 s later: joined
    const c = span(NOW - 30_000, 2); // a gap of 17.5 s
    const segments = windowSegments({ stageId: 'N743AS', spans: [a, b, c] }, NOW);
    expect(recordedRanges(segments, NOW)).toEqual([
      [NOW - 60_000, NOW - 47_500],
      [NOW - 30_000, NOW - 22_000],
    ]);
  });

  it('lands on the instant asked when recorded, on the next recorded one in a gap, and nowhere past the newest', () => {
    const ranges = [
      [1_000, 2_000],
      [5_000, 8_000],
    ] as const;
    expect(playableAt(1_500, ranges)).toBe(1_500);
    expect(playableAt(0, ranges)).toBe(1_000);
    expect(playableAt(3_000, ranges)).toBe(5_000);
    expect(playableAt(8_000, ranges)).toBeUndefined();
    expect(newestRecorded(ranges)).toBe(8_000);
    expect(newestRecorded([])).toBeUndefined();
    // Short of the newest: what a step lands on without going live or stopping at the newest.
    expect(landingIn(3_000, ranges)).toBe(5_000);
    expect(landingIn(7_999, ranges)).toBe(7_999);
    expect(landingIn(8_000, ranges)).toBeUndefined();
    expect(landingIn(9_000, ranges)).toBeUndefined();
  });

  it('with Amazon IVS, takes the HLS spans of the hour and ends what is recorded the delay before now', () => {
    const ivs = (
      name: string,
      startMs: number,
      endMs: number,
      inProgress?: true,
    ): RecordedSpan => ({
      span: `st-One/${name}`,
      startMs,
      endMs,
      publisher: 'encoder',
      mimeType: 'application/vnd.apple.mpegurl',
      segments: [],
      hls: `/api/recordings/ivs/N743AS/st-One/${name}/multivariant.m3u8`,
      ...(inProgress ? { inProgress } : {}),
    });
    const old = ivs('Old', NOW - 3 * REWIND_WINDOW_MS, NOW - REWIND_WINDOW_MS - 1_000);
    const ended = ivs('Ended', NOW - 1_800_000, NOW - 600_000);
    // Listed 15 s ago (the API keeps its list a while), still being written.
    const growing = ivs('Growing', NOW - 300_000, NOW - 15_000, true);
    const spans = windowHlsSpans({ stageId: 'N743AS', spans: [growing, old, ended] }, NOW);
    expect(spans.map((s) => s.span)).toEqual(['st-One/Ended', 'st-One/Growing']);
    expect(windowSegments({ stageId: 'N743AS', spans: [growing] }, NOW)).toEqual([]);

    expect(hlsRanges(spans, NOW)).toEqual([
      [NOW - 1_800_000, NOW - 600_000],
      [NOW - 300_000, NOW - IVS_RECORDING_DELAY_MS],
    ]);
    // Begun within the delay: nothing of it on S3 yet.
    expect(hlsRanges([ivs('New', NOW - 5_000, NOW, true)], NOW)).toEqual([]);

    expect(hlsSpanAt(spans, NOW - 700_000)?.span).toBe('st-One/Ended');
    expect(hlsSpanAt(spans, NOW - 400_000)?.span).toBe('st-One/Growing'); // in the gap: the next
    expect(hlsSpanAt(spans, NOW - 13_000)?.span).toBe('st-One/Growing'); // past its listed end
  });

  it('says how far behind live in minutes and seconds, hours past the hour', () => {
    expect(formatBehind(32_400)).toBe('0:32');
    expect(formatBehind(725_000)).toBe('12:05');
    expect(formatBehind(3_600_000)).toBe('1:00:00');
    expect(formatBehind(-5)).toBe('0:00');
  });
});
