import { describe, expect, it } from 'vitest';
import { TrackClock } from './track-clock';

describe("a download's track clock", () => {
  it('puts a packet at its segment offset, to the microsecond', () => {
    const clock = new TrackClock();
    expect(clock.place(0.1, 4)).toBe(4.1);
    expect(clock.place(0.0333333333, 4)).toBe(4.1); // never back
    expect(clock.place(0.2000004, 4)).toBe(4.2);
  });

  it('never places a key frame a hair before the last packet, as the float sum would', () => {
    // The sum that failed a download: a segment's first frame at 0 s placed at 2.131, after the
    // previous segment's last frame, placed at 2.1310000000000002 by its own sum.
    const clock = new TrackClock();
    const previous = clock.place(2.098, 0.0330000000000002);
    expect(previous).toBe(2.131);
    expect(clock.place(0, 2.131)).toBeGreaterThanOrEqual(previous);
  });
});
