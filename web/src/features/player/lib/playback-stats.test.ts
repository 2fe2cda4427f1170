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

/** `window` null: the video element counted no frames (undefined takes the default window). */
function figuresOf(
  previous: RTCStatsReport | undefined,
  current: RTCStatsReport,
  window: FrameWindow | null = frames(),
) {
  const currentSample = readReceiveSample(current);
  if (!currentSample) throw new Error('no video in the report');
  return playbackFigures(
    previous && readReceiveSample(previous),
    currentSample,
    window ?? undefined,
  );
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

/**
 * Two reports from Debian's Firefox ESR 140 playing N954AS from the local stage, a second apart
 * (the stream's `getStats()`, captured in e2e, local candidates left out). Firefox reports no
 * `transport`, no `transportId` on the inbound-rtp and no round trip on the candidate pair (it
 * marks the pair in use `selected`), and its remote-outbound-rtp has no `roundTripTime` either.
 */
const FIREFOX_140_REPORTS: Record<string, unknown>[][] = [
  [
    {
      id: 'b3e87a5d',
      timestamp: 1795936719327,
      type: 'inbound-rtp',
      codecId: '9a087cce',
      kind: 'video',
      mediaType: 'video',
      ssrc: 4202553719,
      discardedPackets: 0,
      jitter: 0.006511111111111111,
      packetsDiscarded: 0,
      packetsLost: 0,
      packetsReceived: 563,
      bytesReceived: 562273,
      firCount: 0,
      frameHeight: 360,
      frameWidth: 640,
      framesDecoded: 170,
      framesDropped: 0,
      framesPerSecond: 30,
      framesReceived: 170,
      headerBytesReceived: 13512,
      jitterBufferDelay: 4.09866,
      jitterBufferEmittedCount: 170,
      lastPacketReceivedTimestamp: 1795936719310,
      mid: '0',
      nackCount: 0,
      pliCount: 0,
      remoteId: 'c38dcee8',
      totalDecodeTime: 0.432,
      totalInterFrameDelay: 5.667,
      totalProcessingDelay: 4.558091999999999,
      totalSquaredInterFrameDelay: 0.19517500000000004,
      trackIdentifier: '{886d042a-37eb-4770-8889-46e5528199a7}',
    },
    {
      id: 'c38dcee8',
      timestamp: 1795936718823,
      type: 'remote-outbound-rtp',
      codecId: '9a087cce',
      kind: 'video',
      mediaType: 'video',
      ssrc: 4202553719,
      bytesSent: 499642,
      packetsSent: 503,
      localId: 'b3e87a5d',
      remoteTimestamp: 1795936718823,
    },
    {
      id: 'd304674a',
      timestamp: 1795936719327,
      type: 'candidate-pair',
      bytesReceived: 585883,
      bytesSent: 1740,
      localCandidateId: '71142f8f',
      nominated: true,
      readable: true,
      remoteCandidateId: 'f1014a70',
      selected: true,
      state: 'succeeded',
      transportId: 'transport_0',
      writable: true,
    },
    {
      id: 'a594fc09',
      timestamp: 1795936719327,
      type: 'candidate-pair',
      bytesReceived: 0,
      bytesSent: 0,
      nominated: false,
      selected: false,
      state: 'cancelled',
      transportId: 'transport_0',
    },
    {
      id: '9a087cce',
      timestamp: 1795936719327,
      type: 'codec',
      clockRate: 90000,
      codecType: 'decode',
      mimeType: 'video/VP8',
      payloadType: 96,
      sdpFmtpLine: 'max-fs=12288;max-fr=60',
      transportId: 'transport_0',
    },
  ],
  [
    {
      id: 'b3e87a5d',
      timestamp: 1795936720353,
      type: 'inbound-rtp',
      codecId: '9a087cce',
      kind: 'video',
      mediaType: 'video',
      ssrc: 4202553719,
      discardedPackets: 0,
      jitter: 0.005733333333333333,
      packetsDiscarded: 0,
      packetsLost: 0,
      packetsReceived: 684,
      bytesReceived: 687433,
      firCount: 0,
      frameHeight: 360,
      frameWidth: 640,
      framesDecoded: 201,
      framesDropped: 0,
      framesPerSecond: 30,
      framesReceived: 201,
      headerBytesReceived: 16416,
      jitterBufferDelay: 5.0263,
      jitterBufferEmittedCount: 201,
      lastPacketReceivedTimestamp: 1795936720344,
      mid: '0',
      nackCount: 0,
      pliCount: 0,
      remoteId: 'c38dcee8',
      totalDecodeTime: 0.506,
      totalInterFrameDelay: 6.699,
      totalProcessingDelay: 5.563065,
      totalSquaredInterFrameDelay: 0.22960500000000003,
      trackIdentifier: '{886d042a-37eb-4770-8889-46e5528199a7}',
    },
    {
      id: 'c38dcee8',
      timestamp: 1795936719823,
      type: 'remote-outbound-rtp',
      codecId: '9a087cce',
      kind: 'video',
      mediaType: 'video',
      ssrc: 4202553719,
      bytesSent: 624592,
      packetsSent: 623,
      localId: 'b3e87a5d',
      remoteTimestamp: 1795936719822,
    },
    {
      id: 'd304674a',
      timestamp: 1795936720353,
      type: 'candidate-pair',
      bytesReceived: 715955,
      bytesSent: 2120,
      localCandidateId: '71142f8f',
      nominated: true,
      readable: true,
      remoteCandidateId: 'f1014a70',
      selected: true,
      state: 'succeeded',
      transportId: 'transport_0',
      writable: true,
    },
    {
      id: '9a087cce',
      timestamp: 1795936720353,
      type: 'codec',
      clockRate: 90000,
      codecType: 'decode',
      mimeType: 'video/VP8',
      payloadType: 96,
      sdpFmtpLine: 'max-fs=12288;max-fr=60',
      transportId: 'transport_0',
    },
  ],
];

function reportOf(entries: Record<string, unknown>[] = []): RTCStatsReport {
  return new Map(entries.map((entry) => [String(entry.id), entry])) as unknown as RTCStatsReport;
}

const firefoxFirst = reportOf(FIREFOX_140_REPORTS[0]);
const firefoxSecond = reportOf(FIREFOX_140_REPORTS[1]);

describe("the live stats from Firefox's reports", () => {
  it('reads every figure Firefox reports, and no round trip where it reports none', () => {
    // Live stats open: requestVideoFrameCallback counts the frames, with no capture times here.
    const figures = figuresOf(
      firefoxFirst,
      firefoxSecond,
      frames({ frames: 30, glassToGlassMs: [] }),
    );
    expect(figures).toEqual({
      width: 640,
      height: 360,
      codec: 'VP8',
      decodedFps: expect.closeTo(31 / 1.026, 6) as number,
      shownFps: 30,
      bitrateKbps: expect.closeTo(((687433 - 562273) * 8) / 1000 / 1.026, 6) as number,
      lossPercent: 0,
      jitterMs: expect.closeTo(5.73, 2) as number,
      roundTripMs: undefined,
      jitterBufferMs: expect.closeTo(((5.0263 - 4.09866) / 31) * 1000, 6) as number,
      decodeMs: expect.closeTo(((0.506 - 0.432) / 31) * 1000, 6) as number,
      // No round trip to halve: the receive side alone, still a floor, and said to be one.
      glassToGlassMs: expect.closeTo(((5.0263 - 4.09866 + 0.506 - 0.432) / 31) * 1000, 6) as number,
      glassToGlassIsEstimate: true,
    });
    const rows = figureRows(figures);
    expect(rows[0]).toEqual({ label: 'Glass to glass (estimate)', value: '32 ms' });
    expect(rows).toContainEqual({ label: 'Round trip', value: '–' });
  });

  it('measures glass to glass from the capture times where Firefox gives them', () => {
    const figures = figuresOf(
      firefoxFirst,
      firefoxSecond,
      frames({ glassToGlassMs: [60, 65, 70] }),
    );
    expect(figures.glassToGlassMs).toBe(65);
    expect(figures.glassToGlassIsEstimate).toBe(false);
  });

  it('takes the round trip from the sender report where the pair has none', () => {
    const entries = (FIREFOX_140_REPORTS[1] ?? []).map((entry) =>
      entry.type === 'remote-outbound-rtp' ? { ...entry, roundTripTime: 0.012 } : entry,
    );
    expect(readReceiveSample(reportOf(entries))?.roundTripTime).toBe(0.012);
  });

  it("is 'good' on a clean link where the video element counts no frames (stats closed)", () => {
    // What the reader gets in Firefox with the stats closed: getVideoPlaybackQuality() counts no
    // frame of a WebRTC video, so the frames shown are unknown; 30 decoded a second stand in.
    const figures = figuresOf(firefoxFirst, firefoxSecond, null);
    expect(figures.shownFps).toBeUndefined();
    expect(connectionQuality(figures)).toBe('good');
  });

  it("is still 'poor' when the decoded frames stop and nothing counts the frames shown", () => {
    const frozen = reportOf(
      (FIREFOX_140_REPORTS[1] ?? []).map((entry) =>
        entry.type === 'inbound-rtp'
          ? { ...entry, timestamp: 1795936721353, framesDecoded: 202 }
          : entry,
      ),
    );
    expect(connectionQuality(figuresOf(firefoxSecond, frozen, null))).toBe('poor');
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
      'frames shown not counted (Firefox), 30 decoded',
      { shownFps: undefined, decodedFps: 30 },
      'good',
    ],
    ['frames shown not counted, 8 decoded', { shownFps: undefined, decodedFps: 8 }, 'fair'],
    ['frames shown not counted, none decoded', { shownFps: undefined, decodedFps: 0 }, 'poor'],
    ['30 decoded but none shown', { shownFps: 0, decodedFps: 30 }, 'poor'],
    [
      'figures not known yet',
      { lossPercent: undefined, roundTripMs: undefined, shownFps: undefined },
      'good',
    ],
  ])('%s is %s', (_name, change, expected) => {
    expect(connectionQuality({ ...clean, ...change })).toBe(expected);
  });
});
