/**
 * A publisher's capture clock, learnt from its RTCP sender reports, so the viewers' sender reports
 * can carry it (forwarding.ts). An SR pairs an RTP timestamp with the wall-clock time its frame
 * was captured; a browser maps each frame's RTP timestamp through the SRs it receives to place
 * the frame in time (`requestVideoFrameCallback`'s `captureTime`, audio/video sync).
 *
 * werift's own SRs pair the last RTP timestamp sent with the time it was sent (the forwarding
 * time, not the capture time) and write the NTP fraction wrongly (`ntpTime()` puts the decimal
 * digits of the seconds into the binary fraction), so the stage writes its own.
 */

/** Milliseconds between the NTP epoch (1900) and the Unix epoch (1970). */
const NTP_EPOCH_OFFSET_MS = 2_208_988_800_000;
const TWO_TO_32 = 2 ** 32;
/** SRs whose arrival the clock offset is estimated over (the least delayed one wins). */
const OFFSET_WINDOW = 8;

/** Now on the Unix epoch, in milliseconds with a sub-millisecond part. */
export function epochNowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** A 64-bit NTP timestamp (seconds since 1900, 32.32 fixed point) for a Unix-epoch time. */
export function ntpFromEpochMs(epochMs: number): bigint {
  const sinceNtpEpochMs = epochMs + NTP_EPOCH_OFFSET_MS;
  const seconds = Math.floor(sinceNtpEpochMs / 1000);
  const fraction = Math.min(
    TWO_TO_32 - 1,
    Math.floor(((sinceNtpEpochMs - seconds * 1000) / 1000) * TWO_TO_32),
  );
  return (BigInt(seconds) << 32n) | BigInt(fraction);
}

/** The middle 32 bits of an NTP timestamp (RTCP's LSR and DLSR unit: 1/65536 s). */
export function compactNtp(ntp: bigint): number {
  return Number((ntp >> 16n) & 0xffff_ffffn);
}

export function epochMsFromNtp(ntp: bigint): number {
  const seconds = Number(ntp >> 32n);
  const fraction = Number(ntp & 0xffff_ffffn);
  return seconds * 1000 + (fraction / TWO_TO_32) * 1000 - NTP_EPOCH_OFFSET_MS;
}

/** A sender report as the publisher sent it: its NTP time and the RTP timestamp at that time. */
export interface SenderReportTime {
  ntpTimestamp: bigint;
  rtpTimestamp: number;
}

/**
 * One track's capture clock. The publisher's NTP clock is put on the stage's clock by the
 * smallest (arrival − NTP time) of the last few SRs: on one machine that is the same clock within
 * a millisecond, and a publisher elsewhere with a clock off by minutes still maps right (what the
 * SR's wire and queueing delay add is the least of them).
 */
export class CaptureClock {
  private anchor: { rtpTimestamp: number; epochMs: number } | undefined;
  private readonly offsets: number[] = [];

  constructor(readonly clockRate: number) {}

  get known(): boolean {
    return this.anchor !== undefined;
  }

  /** A sender report from the publisher, received at `arrivalMs` (stage clock, Unix epoch). */
  onSenderReport(report: SenderReportTime, arrivalMs = epochNowMs()): void {
    const epochMs = epochMsFromNtp(report.ntpTimestamp);
    this.anchor = { rtpTimestamp: report.rtpTimestamp, epochMs };
    this.offsets.push(arrivalMs - epochMs);
    if (this.offsets.length > OFFSET_WINDOW) this.offsets.shift();
  }

  /** The publisher's RTP timestamp for the stage-clock time `epochMs`; undefined before an SR. */
  rtpTimestampAt(epochMs: number): number | undefined {
    if (!this.anchor) return undefined;
    const offsetMs = Math.min(...this.offsets);
    const elapsedMs = epochMs - (this.anchor.epochMs + offsetMs);
    const ticks = Math.round((elapsedMs * this.clockRate) / 1000);
    return (((this.anchor.rtpTimestamp + ticks) % TWO_TO_32) + TWO_TO_32) % TWO_TO_32;
  }
}
