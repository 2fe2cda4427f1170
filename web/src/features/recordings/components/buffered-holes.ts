/**
 * Holes in a recording's buffered media (decision 0073, amendment "holes"): a span may hold gaps
 * of up to a second between its segments (the API joins segments closer than that), and a frame
 * the encoder held long can leave a few ms uncovered. A browser's Media Source Extensions stop at
 * any of them: playback stalls and a seek into one never completes (no `seeked`). The player
 * jumps such a hole, as hls.js does: only a short one, and only where no segment still to come
 * would fill it.
 */

/** [start, end] in seconds. */
export type TimeRange = readonly [number, number];

/** A hole longer than this is not jumped (the API splits spans at 1 s gaps). */
export const MAX_HOLE_S = 1.5;
/** Less media than this ahead of the playhead before a hole counts as the end of what plays. */
const STALL_AHEAD_S = 0.5;
/** Where in the range after a hole the playhead lands: just inside it. */
const LANDING_S = 0.001;
/** Slack in comparing the buffered ranges with the segments' times. */
const SLACK_S = 0.05;

export function rangesOf(buffered: TimeRanges): TimeRange[] {
  return Array.from({ length: buffered.length }, (_, index) => [
    buffered.start(index),
    buffered.end(index),
  ]);
}

/**
 * Where to move a stalled playhead at `time`: past the hole it is at or in, when `buffered` goes
 * on after one no longer than MAX_HOLE_S and no segment still to append (`pending`, as time
 * ranges) lies in the hole, so nothing more will come to fill it; undefined otherwise.
 */
export function pastHole(
  time: number,
  buffered: readonly TimeRange[],
  pending: readonly TimeRange[],
): number | undefined {
  const current = buffered.find(([start, end]) => start - SLACK_S <= time && time < end);
  if (current && current[1] - time > STALL_AHEAD_S) return undefined;
  const holeStart = current ? current[1] : time;
  const next = buffered.find(([start]) => start > holeStart);
  if (!next || next[0] - holeStart > MAX_HOLE_S) return undefined;
  const coming = pending.some(
    ([start, end]) => start < next[0] - SLACK_S && end > holeStart + SLACK_S,
  );
  return coming ? undefined : next[0] + LANDING_S;
}
