/**
 * `RemoteStageStream.requestQualityStats()` as the IVS SDK 1.41 shapes it (`RemoteVideoStats`,
 * `RemoteAudioStats`): the receiver's `inbound-rtp` counters as the browser reports them, and a
 * `networkQuality` from the share of packets lost since the previous call, as the IVS SDK
 * documents it ("the ratio of lost packets to total packets").
 */

/** IVS's `NetworkQuality` (a const enum there: numbers at run time, as here). */
export const NetworkQuality = { EXCELLENT: 4, GOOD: 3, NORMAL: 2, POOR: 1, DOWN: 0 } as const;
export type NetworkQuality = (typeof NetworkQuality)[keyof typeof NetworkQuality];

const SHARED = [
  'nackCount',
  'packetsReceived',
  'packetsLost',
  'packetsDiscarded',
  'bytesReceived',
  'headerBytesReceived',
  'jitterBufferDelay',
  'jitterBufferEmittedCount',
  'jitter',
] as const;
const VIDEO = [
  ...SHARED,
  'pliCount',
  'firCount',
  'framesReceived',
  'framesDecoded',
  'keyFramesDecoded',
  'framesDropped',
  'totalDecodeTime',
  'totalInterFrameDelay',
  'totalSquaredInterFrameDelay',
  'pauseCount',
  'totalPausesDuration',
  'freezeCount',
  'totalFreezesDuration',
  'frameWidth',
  'frameHeight',
  'framesPerSecond',
  'ssrc',
] as const;
const AUDIO = [
  ...SHARED,
  'totalSamplesReceived',
  'concealedSamples',
  'silentConcealedSamples',
  'concealmentEvents',
  'insertedSamplesForDeceleration',
  'removedSamplesForAcceleration',
  'audioLevel',
] as const;

type Field = (typeof VIDEO)[number] | (typeof AUDIO)[number];
export type RemoteStats = { networkQuality?: NetworkQuality } & Partial<Record<Field, number>>;

export interface PacketCount {
  received: number;
  lost: number;
}

/**
 * Loss since the previous call: none, EXCELLENT; under 1 %, GOOD; under 5 %, NORMAL; under 10 %,
 * POOR; more, or nothing received at all, DOWN.
 */
export function networkQuality(
  previous: PacketCount | undefined,
  now: PacketCount,
): NetworkQuality {
  const received = now.received - (previous?.received ?? 0);
  const lost = Math.max(0, now.lost - (previous?.lost ?? 0));
  if (received <= 0) return NetworkQuality.DOWN;
  const share = lost / (received + lost);
  if (share === 0) return NetworkQuality.EXCELLENT;
  if (share < 0.01) return NetworkQuality.GOOD;
  if (share < 0.05) return NetworkQuality.NORMAL;
  if (share < 0.1) return NetworkQuality.POOR;
  return NetworkQuality.DOWN;
}

/** The quality stats of the track's receiver in `report`; undefined when it has none yet. */
export function qualityStats(
  report: RTCStatsReport,
  kind: string,
  previous: PacketCount | undefined,
): { stats: RemoteStats; count: PacketCount } | undefined {
  let inbound: Record<string, unknown> | undefined;
  report.forEach((entry: Record<string, unknown>) => {
    if (entry.type === 'inbound-rtp' && entry.kind === kind) inbound = entry;
  });
  if (!inbound) return undefined;
  const stats: RemoteStats = {};
  for (const field of kind === 'audio' ? AUDIO : VIDEO) {
    const value = inbound[field];
    if (typeof value === 'number') stats[field] = value;
  }
  const count = { received: stats.packetsReceived ?? 0, lost: stats.packetsLost ?? 0 };
  stats.networkQuality = networkQuality(previous, count);
  return { stats, count };
}
