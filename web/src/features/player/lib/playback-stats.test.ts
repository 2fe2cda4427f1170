import { describe, expect, it } from 'vitest';
import { figureRows } from './format-figures';
import {
  connectionQuality,
  playbackFigures,
  readReceiveSample,
  type FrameWindow,
  type PlaybackFigures,
} from './playback-stats';

/** A report as Chromium gives it for a video receiver: a map of stats objects by id. */
function report(at: number, inbound: Record<string, number>, roundTripTime = 0.004) {
  const entries: Record<string, unknown>[] = [
    {
      id: 'IT01V1',
      type: 'inbound-rtp',
      kind: 'video',
      timestamp: at,
      codecId: 'CIT01_102',
      transportId: 'T01',
      frameWidth: 640,
      frameHeight: 360,
      ...inbound,
    },
    { id: 'CIT01_102', type: 'codec', mimeType: 'video/H264', payloadType: 102 },
    { id: 'T01', type: 'transport', selectedCandidatePairId: 'CP1' },
    { id: 'CP1', type: 'candidate-pair', nominated: true, currentRoundTripTime: roundTripTime },
    { id: 'CP2', type: 'candidate-pair', nominated: false, currentRoundTripTime: 9 },
    { id: 'IT01A', type: 'inbound-rtp', kind: 'audio', timestamp: at, packetsReceived: 999 },
  ];
  return new Map(entries.map((entry) => [entry.id, entry])) as unknown as RTCStatsReport;
}

const first = report(10_000, {
  bytesReceived: 1_000_000,
  packetsReceived: 1_000,
  packetsLost: 0,
  framesDecoded: 300,
  jitter: 0.002,
  jitterBufferDelay: 6, // 20 ms a frame so far
  jitterBufferEmittedCount: 300,
  totalDecodeTime: 0.6,
});
// One second later: 30 frames, 125,000 bytes, 98 packets received and 2 lost, frames waited
// 0.45 s in all in the jitter buffer (15 ms each) and took 0.045 s to decode (1.5 ms each).
const second = report(11_000, {
  bytesReceived: 1_125_000,
  packetsReceived: 1_098,
  packetsLost: 2,
  framesDecoded: 330,
  jitter: 0.0035,
  jitterBufferDelay: 6.45,
  jitterBufferEmittedCount: 330,
  totalDecodeTime: 0.645,
});

const frames = (over: Partial<FrameWindow> = {}): FrameWindow => ({
  frames: 29,
  elapsedMs: 1_000,
  glassToGlassMs: [24, 30, 26, 90, 25],
  ...over,
});

function figuresOf(
  previous: RTCStatsReport | undefined,
  current: RTCStatsReport,
  window = frames(),
) {
  const currentSample = readReceiveSample(current);
  if (!currentSample) throw new Error('no video in the report');
  return playbackFigures(previous && readReceiveSample(previous), currentSample, window);
}

describe('the live stats figures', () => {
  it('reads rates from the growth between two reports, and glass to glass from the frames', () => {
    const figures = figuresOf(first, second);
    expect(figures).toEqual({
      width: 640,
      height: 360,
      codec: 'H264',
      decodedFps: 30,
      shownFps: 29,
      bitrateKbps: 1000,
      lossPercent: 2,
      jitterMs: 3.5,
      roundTripMs: 4,
      jitterBufferMs: expect.closeTo(15, 6) as number,
      decodeMs: expect.closeTo(1.5, 6) as number,
      glassToGlassMs: 26, // the median: one late frame does not move it
      glassToGlassIsEstimate: false,
    });
  });

  it('shows what it can from the first report alone, and no rate', () => {
    const figures = figuresOf(undefined, first);
    expect(figures.width).toBe(640);
    expect(figures.roundTripMs).toBe(4);
    expect(figures.decodedFps).toBeUndefined();
    expect(figures.bitrateKbps).toBeUndefined();
    expect(figures.glassToGlassMs).toBe(26);
  });

  it('estimates glass to glass from the stats, and says so, when frames carry no capture time', () => {
    const figures = figuresOf(first, second, frames({ glassToGlassMs: [] }));
    expect(figures.glassToGlassIsEstimate).toBe(true);
    expect(figures.glassToGlassMs).toBeCloseTo(2 + 15 + 1.5, 6);
    expect(figureRows(figures)[0]).toEqual({
      label: 'Glass to glass (estimate)',
      value: '19 ms',
    });
  });

  it('has no glass-to-glass figure at all before it can estimate one', () => {
    const figures = figuresOf(undefined, first, frames({ glassToGlassMs: [] }));
    expect(figures.glassToGlassMs).toBeUndefined();
    expect(figureRows(figures)[0]).toEqual({ label: 'Glass to glass', value: '–' });
  });

  it('counts packets that arrive late after all as no loss, never a negative one', () => {
    const late = report(12_000, {
      bytesReceived: 1_250_000,
      packetsReceived: 1_200,
      packetsLost: 1, // one of the two lost packets came after all
      framesDecoded: 360,
      jitterBufferDelay: 6.9,
      jitterBufferEmittedCount: 360,
      totalDecodeTime: 0.69,
    });
    expect(figuresOf(second, late).lossPercent).toBe(0);
  });

  it('has no report to read before the receiver has video', () => {
    const audioOnly = new Map([
      ['A', { id: 'A', type: 'inbound-rtp', kind: 'audio', timestamp: 1 }],
    ]) as unknown as RTCStatsReport;
    expect(readReceiveSample(audioOnly)).toBeUndefined();
  });

  it('writes every row the way the viewer reads it', () => {
    expect(figureRows(figuresOf(first, second))).toEqual([
      { label: 'Glass to glass', value: '26 ms' },
      { label: 'Resolution', value: '640 × 360' },
      { label: 'Frame rate', value: '30 decoded, 29 shown' },
      { label: 'Bitrate', value: '1000 kbit/s' },
      { label: 'Packet loss', value: '2.0 %' },
      { label: 'Jitter', value: '3.5 ms' },
      { label: 'Round trip', value: '4.0 ms' },
      { label: 'Jitter buffer', value: '15 ms' },
      { label: 'Decode time', value: '1.5 ms' },
      { label: 'Codec', value: 'H264' },
    ]);
  });
});

describe('the connection quality', () => {
  const clean: PlaybackFigures = {
    lossPercent: 0,
    roundTripMs: 4,
    shownFps: 30,
    glassToGlassIsEstimate: false,
  };

  it.each<[string, Partial<PlaybackFigures>, string]>([
    ['no loss, a short round trip, 30 frames', {}, 'good'],
    [
      'just under every fair threshold',
      { lossPercent: 0.9, roundTripMs: 149, shownFps: 12 },
      'good',
    ],
    ['1 % loss', { lossPercent: 1 }, 'fair'],
    ['a 150 ms round trip', { roundTripMs: 150 }, 'fair'],
    ['11 frames a second', { shownFps: 11 }, 'fair'],
    ['5 % loss', { lossPercent: 5 }, 'poor'],
    ['a 400 ms round trip', { roundTripMs: 400 }, 'poor'],
    ['a frozen picture', { shownFps: 0 }, 'poor'],
    [
      'figures not known yet',
      { lossPercent: undefined, roundTripMs: undefined, shownFps: undefined },
      'good',
    ],
  ])('%s is %s', (_name, change, expected) => {
    expect(connectionQuality({ ...clean, ...change })).toBe(expected);
  });
});
