/**
 * Holes in a recording's buffered media (decisions 0075 and 0109): a span may hold gaps of up to a
 * second between its segments (the API joins segments closer than that), a frame the encoder held
 * long can leave a few ms uncovered, and pictures the recorder never got (a machine starved of
 * CPU, a loss mended only by the next key frame) leave seconds of a segment with sound and no
 * video. A browser's Media Source Extensions stop at any of them: playback stalls and a seek into
 * one never completes (no `seeked`). The players (the Recordings page's, the live rewind's) jump
 * such a hole, as hls.js and Shaka do, whatever its length, but only where no segment still to
 * come would fill it.
 */

/** [start, end] in seconds. */
export type TimeRange = readonly [number, number];

/** Less media than this ahead of the playhead before a hole counts as the end of what plays. */
const STALL_AHEAD_S = 0.5;
/** Where in the range after a hole the playhead lands: just inside it. */
const LANDING_S = 0.001;
/** Slack in comparing the buffered ranges with the segments' times. */
const SLACK_S = 0.05;
/** HTMLMediaElement's readyState values (as numbers: the unit tests run without a DOM's). */
const HAVE_FUTURE_DATA = 3;
const HAVE_ENOUGH_DATA = 4;

/** What of a video says whether its playhead is stuck. */
export type PlaybackState = Pick<
  HTMLVideoElement,
  'seeking' | 'paused' | 'ended' | 'autoplay' | 'readyState'
>;

/**
 * Whether the playhead is stuck where it is: a seek not completing, playback short of data, or a
 * video waiting to autoplay without enough data ahead to begin (a hole never gives it). A video the
 * viewer paused (`pausedByViewer`: a `pause` event came) is not.
 */
export function isStalled(video: PlaybackState, pausedByViewer = false): boolean {
  if (video.seeking) return true;
  if (video.ended) return false;
  if (!video.paused) return video.readyState < HAVE_FUTURE_DATA;
  return video.autoplay && !pausedByViewer && video.readyState < HAVE_ENOUGH_DATA;
}

export function rangesOf(buffered: TimeRanges): TimeRange[] {
  return Array.from({ length: buffered.length }, (_, index) => [
    buffered.start(index),
    buffered.end(index),
  ]);
}

/**
 * Where to move a stalled playhead at `time`: past the hole it is at or in, when `buffered` goes
 * on after it and no segment still to append (`pending`, as time ranges) lies in the hole, so
 * nothing more will come to fill it; undefined otherwise.
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
  if (!next) return undefined;
  const coming = pending.some(
    ([start, end]) => start < next[0] - SLACK_S && end > holeStart + SLACK_S,
  );
  return coming ? undefined : next[0] + LANDING_S;
}
