/**
 * The figures of the live stats overlay (docs/product.md#live-stats), from what any stage SDK
 * gives: the stream's `requestRTCStats()` report, read once a second, and the frames the video
 * element showed (frame-sampler.ts). Pure functions: two report samples and a second's frames in,
 * the figures out.
 */

/** What one `RTCStatsReport` says about the video received: cumulative counters, as reported. */
export interface ReceiveSample {
  /** The report's timestamp, in milliseconds. */
  at: number;
  bytesReceived: number;
  packetsReceived: number;
  packetsLost: number;
  framesDecoded: number;
  /** Seconds, as reported. */
  jitter?: number;
  jitterBufferDelay: number;
  jitterBufferEmittedCount: number;
  totalDecodeTime: number;
  frameWidth?: number;
  frameHeight?: number;
  /** The codec's name without `video/`, e.g. `H264` or `VP8`. */
  codec?: string;
  /**
   * The round-trip time in seconds: the selected candidate pair's current one, else the
   * remote-outbound-rtp's; undefined where the browser reports neither (Firefox, receiving only).
   */
  roundTripTime?: number;
}

/** The frames the video element showed since the last reading. */
export interface FrameWindow {
  /** Frames shown (the growth of `presentedFrames`, or of the playback quality's frames less the dropped). */
  frames: number;
  /** Milliseconds the window lasted. */
  elapsedMs: number;
  /**
   * `expectedDisplayTime − captureTime` of each frame that had a capture time, in ms; empty when
   * the frames were only counted (live stats closed).
   */
  glassToGlassMs: number[];
}

export interface PlaybackFigures {
  width?: number;
  height?: number;
  decodedFps?: number;
  shownFps?: number;
  bitrateKbps?: number;
  lossPercent?: number;
  jitterMs?: number;
  roundTripMs?: number;
  jitterBufferMs?: number;
  decodeMs?: number;
  codec?: string;
  glassToGlassMs?: number;
  /** The glass-to-glass figure is an estimate from the receive side's stats (no capture times). */
  glassToGlassIsEstimate: boolean;
}

interface StatsEntry {
  type?: unknown;
  [key: string]: unknown;
}

const number = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** Reads the video receiver's sample out of a report; undefined when it holds no video yet. */
export function readReceiveSample(report: RTCStatsReport): ReceiveSample | undefined {
  const entries = new Map<string, StatsEntry>();
  report.forEach((entry: StatsEntry & { id: string }) => entries.set(entry.id, entry));
  const inbound = [...entries.values()].find(
    (entry) => entry.type === 'inbound-rtp' && entry.kind === 'video',
  );
  if (!inbound) return undefined;

  const codec = entries.get(String(inbound.codecId));
  const mimeType = typeof codec?.mimeType === 'string' ? codec.mimeType : undefined;
  // The pair in use: the transport's selected one (Chromium); Firefox reports no transport, and
  // marks the pair itself `selected` (its own field), else the nominated one.
  const transport = entries.get(String(inbound.transportId));
  const pairs = [...entries.values()].filter((entry) => entry.type === 'candidate-pair');
  const pair =
    entries.get(String(transport?.selectedCandidatePairId)) ??
    pairs.find((entry) => entry.selected === true) ??
    pairs.find((entry) => entry.nominated === true);
  // The sender's own view of the stream, where it measured a round trip (an SR with DLRR).
  const remote = entries.get(String(inbound.remoteId));

  return {
    at: number(inbound.timestamp) ?? 0,
    bytesReceived: number(inbound.bytesReceived) ?? 0,
    packetsReceived: number(inbound.packetsReceived) ?? 0,
    packetsLost: number(inbound.packetsLost) ?? 0,
    framesDecoded: number(inbound.framesDecoded) ?? 0,
    jitter: number(inbound.jitter),
    jitterBufferDelay: number(inbound.jitterBufferDelay) ?? 0,
    jitterBufferEmittedCount: number(inbound.jitterBufferEmittedCount) ?? 0,
    totalDecodeTime: number(inbound.totalDecodeTime) ?? 0,
    frameWidth: number(inbound.frameWidth),
    frameHeight: number(inbound.frameHeight),
    codec: mimeType?.replace(/^video\//i, ''),
    roundTripTime: number(pair?.currentRoundTripTime) ?? number(remote?.roundTripTime),
  };
}

/** A ratio of two growths, or undefined when the denominator did not grow. */
function perUnit(numerator: number, denominator: number): number | undefined {
  return denominator > 0 ? numerator / denominator : undefined;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? sorted[middle]
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * The overlay's figures for the last second: rates from the growth of the counters between two
 * samples (none before the second sample), the frames shown and the glass-to-glass figure from
 * the video element (none where it cannot count them). Without capture times, glass to glass is
 * estimated as half the round trip (where the browser reports one) + the jitter buffer's delay +
 * the decode time: the receive side only, so a floor.
 */
export function playbackFigures(
  previous: ReceiveSample | undefined,
  current: ReceiveSample,
  frames: FrameWindow | undefined,
): PlaybackFigures {
  const figures: PlaybackFigures = {
    width: current.frameWidth,
    height: current.frameHeight,
    codec: current.codec,
    jitterMs: current.jitter === undefined ? undefined : current.jitter * 1000,
    roundTripMs: current.roundTripTime === undefined ? undefined : current.roundTripTime * 1000,
    shownFps:
      frames && frames.elapsedMs > 0 ? (frames.frames * 1000) / frames.elapsedMs : undefined,
    glassToGlassIsEstimate: false,
  };

  if (previous && current.at > previous.at) {
    const seconds = (current.at - previous.at) / 1000;
    const decoded = current.framesDecoded - previous.framesDecoded;
    const received = current.packetsReceived - previous.packetsReceived;
    // Lost can shrink when late packets arrive after all (RFC 3550): count no less than 0.
    const lost = Math.max(0, current.packetsLost - previous.packetsLost);
    figures.decodedFps = decoded / seconds;
    figures.bitrateKbps = ((current.bytesReceived - previous.bytesReceived) * 8) / 1000 / seconds;
    figures.lossPercent = received + lost > 0 ? (lost / (received + lost)) * 100 : undefined;
    const bufferDelay = perUnit(
      current.jitterBufferDelay - previous.jitterBufferDelay,
      current.jitterBufferEmittedCount - previous.jitterBufferEmittedCount,
    );
    figures.jitterBufferMs = bufferDelay === undefined ? undefined : bufferDelay * 1000;
    const decodeTime = perUnit(current.totalDecodeTime - previous.totalDecodeTime, decoded);
    figures.decodeMs = decodeTime === undefined ? undefined : decodeTime * 1000;
  }

  const measured = median(frames?.glassToGlassMs ?? []);
  if (measured !== undefined) {
    figures.glassToGlassMs = measured;
  } else if (figures.jitterBufferMs !== undefined && figures.decodeMs !== undefined) {
    // A round trip the browser does not report adds nothing: the estimate stays a floor.
    figures.glassToGlassMs =
      (figures.roundTripMs ?? 0) / 2 + figures.jitterBufferMs + figures.decodeMs;
    figures.glassToGlassIsEstimate = true;
  }
  return figures;
}

export type ConnectionQuality = 'good' | 'fair' | 'poor';

/**
 * The indicator's rule (docs/product.md#connection-quality): poor at 5 % loss, a 400 ms round
 * trip or under 5 frames shown a second; fair at 1 %, 150 ms or under 12 frames; good otherwise.
 * Where the video element cannot count the frames it shows (Firefox counts none for a WebRTC
 * video), the frames decoded stand in for them. A figure not known, not yet or not in this
 * browser, does not count against the connection.
 */
export function connectionQuality(figures: PlaybackFigures): ConnectionQuality {
  const loss = figures.lossPercent ?? 0;
  const roundTrip = figures.roundTripMs ?? 0;
  const fps = figures.shownFps ?? figures.decodedFps ?? Number.POSITIVE_INFINITY;
  if (loss >= 5 || roundTrip >= 400 || fps < 5) return 'poor';
  if (loss >= 1 || roundTrip >= 150 || fps < 12) return 'fair';
  return 'good';
}
