import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flightSample } from '../testing/flight-samples';
import { LiveFlightData } from './live-flight-data';

let store: LiveFlightData;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_795_000_000_000 });
  store = new LiveFlightData();
});

afterEach(() => {
  store.dispose();
  vi.useRealTimers();
});

/** A sample a second for `seconds` seconds, flying north, each captured as it is pushed. */
function fly(seconds: number, from = 0) {
  for (let second = from; second < from + seconds; second += 1) {
    store.push(
      flightSample({ capturedAtMs: Date.now(), latitude: 47 + second * 0.001, altitudeFt: second }),
    );
    vi.advanceTimersByTime(1_000);
  }
}

describe('LiveFlightData', () => {
  it('has nothing to show before its first sample', () => {
    expect(store.getSnapshot()).toEqual({ status: 'none' });
    vi.advanceTimersByTime(60_000);
    expect(store.getSnapshot()).toEqual({ status: 'none' });
  });

  it('shows a sample as current for 2.5 s, then with its age each second, then not at all after 10 s', () => {
    const listener = vi.fn();
    store.subscribe(listener);
    const sample = flightSample();
    store.push(sample);
    expect(store.getSnapshot()).toMatchObject({ status: 'fresh', sample });

    vi.advanceTimersByTime(2_500);
    expect(store.getSnapshot().status).toBe('fresh');
    vi.advanceTimersByTime(1);
    expect(store.getSnapshot()).toMatchObject({ status: 'stale', sample, ageSeconds: 3 });
    vi.advanceTimersByTime(2_000);
    expect(store.getSnapshot()).toMatchObject({ status: 'stale', ageSeconds: 5 });
    vi.advanceTimersByTime(5_498);
    expect(store.getSnapshot()).toMatchObject({ status: 'stale', ageSeconds: 10 });
    vi.advanceTimersByTime(2);
    expect(store.getSnapshot()).toEqual({ status: 'gone' });
    // Once per change of what is shown: fresh, stale at 3 s, 4 … 10 s, gone.
    expect(listener).toHaveBeenCalledTimes(10);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is current again when the next sample comes after a gap', () => {
    store.push(flightSample({ capturedAtMs: 1 }));
    vi.advanceTimersByTime(30_000);
    expect(store.getSnapshot().status).toBe('gone');
    const next = flightSample({ capturedAtMs: 2, altitudeFt: 9_000 });
    store.push(next);
    expect(store.getSnapshot()).toMatchObject({ status: 'fresh', sample: next });
  });

  it('takes a repeated payload, or an older one, as nothing new: its age goes on', () => {
    const sample = flightSample({ capturedAtMs: 10 });
    store.push(sample);
    vi.advanceTimersByTime(3_000);
    store.push({ ...sample });
    store.push(flightSample({ capturedAtMs: 9 }));
    expect(store.getSnapshot()).toMatchObject({ status: 'stale', sample, ageSeconds: 3 });
  });

  it('keeps the positions of the last 3 minutes for the track, oldest first', () => {
    fly(200);
    const reading = store.getSnapshot();
    if (reading.status !== 'fresh' && reading.status !== 'stale') throw new Error(reading.status);
    expect(reading.track).toHaveLength(181);
    expect(reading.track[0]?.latitude).toBeCloseTo(47.019);
    expect(reading.track.at(-1)?.latitude).toBeCloseTo(47.199);
  });

  it('runs no timer once disposed', () => {
    store.push(flightSample());
    store.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});
