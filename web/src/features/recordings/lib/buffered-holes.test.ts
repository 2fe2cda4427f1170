/**
 * The holes a recording's player jumps (buffered-holes.ts): one inside what is appended, where a
 * seek or playback stalls, short or seconds long; never one a segment still to come will fill,
 * past the end, or when enough plays before it.
 */
import { describe, expect, it } from 'vitest';
import { isStalled, pastHole, type PlaybackState } from './buffered-holes';

describe('pastHole', () => {
  it('moves a playhead stalled just before a hole, or in one, to the range after it', () => {
    // Seen in Chromium: a seek to 0.01 s never completed with these ranges.
    const buffered = [
      [0, 0.066],
      [0.18, 8.5],
    ] as const;
    expect(pastHole(0.01, buffered, [])).toBeCloseTo(0.181, 3);
    expect(pastHole(0.1, buffered, [])).toBeCloseTo(0.181, 3);
    // A gap between a span's segments (up to a second) too.
    expect(
      pastHole(
        2,
        [
          [0, 2],
          [2.9, 4],
        ],
        [],
      ),
    ).toBeCloseTo(2.901, 3);
  });

  it('leaves the playhead where enough plays before the hole', () => {
    expect(
      pastHole(
        1,
        [
          [0, 2],
          [2.2, 4],
        ],
        [],
      ),
    ).toBeUndefined();
  });

  it('does not jump where a segment still to append lies: the media is on its way', () => {
    expect(
      pastHole(
        2,
        [
          [0, 2],
          [3, 4],
        ],
        [[2, 3]],
      ),
    ).toBeUndefined();
    // One beyond the hole does not hold it.
    expect(
      pastHole(
        2,
        [
          [0, 2],
          [2.5, 4],
        ],
        [[4, 5]],
      ),
    ).toBeCloseTo(2.501, 3);
  });

  it('jumps seconds of a segment the recorder got no pictures for, played into or sought into', () => {
    // Seen in Firefox on a loaded machine: video lost for 2.0 s inside one 4.8 s segment (its sound
    // whole), a seek by the rewind's ← landing in it, never completing.
    const buffered = [
      [3652.984, 3654.732],
      [3656.752, 3657.785],
    ] as const;
    expect(pastHole(3654.955, buffered, [])).toBeCloseTo(3656.753, 3);
    expect(pastHole(3654.7, buffered, [])).toBeCloseTo(3656.753, 3);
  });

  it('does not jump past the end of what is appended', () => {
    expect(pastHole(3.9, [[0, 4]], [])).toBeUndefined();
    expect(pastHole(5, [], [])).toBeUndefined();
  });
});

describe('isStalled', () => {
  const video = (state: Partial<PlaybackState>): PlaybackState => ({
    seeking: false,
    paused: false,
    ended: false,
    autoplay: false,
    readyState: 4,
    ...state,
  });

  it('is a seek not completing, or playback short of data', () => {
    expect(isStalled(video({ seeking: true, paused: true }))).toBe(true);
    expect(isStalled(video({ readyState: 2 }))).toBe(true);
    expect(isStalled(video({ readyState: 3 }))).toBe(false);
    expect(isStalled(video({ readyState: 2, ended: true }))).toBe(false);
  });

  it('is a video waiting to autoplay short of enough data, not one the viewer paused', () => {
    // Seen in Firefox: the rewind's ← landed 0.25 s before a hole; autoplay waited for ever.
    expect(isStalled(video({ paused: true, autoplay: true, readyState: 3 }))).toBe(true);
    expect(isStalled(video({ paused: true, autoplay: true, readyState: 3 }), true)).toBe(false);
    expect(isStalled(video({ paused: true, autoplay: true, readyState: 4 }))).toBe(false);
    expect(isStalled(video({ paused: true, readyState: 1 }))).toBe(false);
  });
});
