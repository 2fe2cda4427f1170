/**
 * The holes a recording's player jumps (buffered-holes.ts): a short one inside what is appended,
 * where a seek or playback stalls; never one a segment still to come will fill, a long one, or
 * when enough plays before it.
 */
import { describe, expect, it } from 'vitest';
import { MAX_HOLE_S, pastHole } from './buffered-holes';

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

  it('does not jump a hole longer than a span holds, or past the end', () => {
    expect(
      pastHole(
        2,
        [
          [0, 2],
          [2 + MAX_HOLE_S + 0.1, 9],
        ],
        [],
      ),
    ).toBeUndefined();
    expect(pastHole(3.9, [[0, 4]], [])).toBeUndefined();
    expect(pastHole(5, [], [])).toBeUndefined();
  });
});
