/**
 * A track's timestamps as a download places them (remux-worker.ts): each segment's own, from 0,
 * moved by the segment's offset in the span. In floating point a sum can land a hair before what
 * the previous segment ended on (2.131 + ... = 2.1310000000000002 before, 2.131 now), and the
 * muxer refuses a key frame earlier than the largest timestamp before it, which failed the whole
 * download. So times are rounded to the microsecond and never go back.
 */
export class TrackClock {
  private latest = Number.NEGATIVE_INFINITY;

  /** Where a packet at `timestamp` (s) in a segment moved by `shiftSeconds` goes, in seconds. */
  place(timestamp: number, shiftSeconds: number): number {
    const placed = Math.round((timestamp + shiftSeconds) * 1e6) / 1e6;
    this.latest = Math.max(this.latest, placed);
    return this.latest;
  }
}
