import { describe, expect, it, vi } from 'vitest';
import { flightSample } from '../testing/flight-samples';
import { RecordedFlightData } from './recorded-flight-data';

/** A recording of `seconds` seconds with a sample a second at media times 0.5 s, 1.5 s, … */
function recording(seconds: number): RecordedFlightData {
  const recorded = new RecordedFlightData();
  for (let second = 0; second < seconds; second += 1) {
    recorded.add(
      flightSample({ capturedAtMs: second * 1_000, altitudeFt: 1_000 + second }),
      second * 1_000 + 500,
    );
  }
  return recorded;
}

function shownAltitude(recorded: RecordedFlightData): number | string {
  const reading = recorded.getSnapshot();
  return reading.status === 'fresh' || reading.status === 'stale'
    ? reading.sample.altitudeFt
    : reading.status;
}

describe('RecordedFlightData', () => {
  it('shows the sample of the frame on screen, whatever the order they were added in', () => {
    const recorded = new RecordedFlightData();
    for (const second of [3, 0, 2, 1]) {
      recorded.add(
        flightSample({ capturedAtMs: second, altitudeFt: second * 100 }),
        second * 1_000,
      );
    }
    recorded.show(2_999);
    expect(shownAltitude(recorded)).toBe(200);
    recorded.show(3_000);
    expect(shownAltitude(recorded)).toBe(300);
    recorded.show(1_000);
    expect(shownAltitude(recorded)).toBe(100);
  });

  it('has nothing to show before the first sample of the recording', () => {
    const recorded = recording(10);
    recorded.show(0);
    expect(recorded.getSnapshot()).toEqual({ status: 'none' });
  });

  it('counts a sample’s age in media time: stale past 2.5 s, gone past 10 s', () => {
    const recorded = recording(5); // the last at 4.5 s
    recorded.show(7_000);
    expect(recorded.getSnapshot()).toMatchObject({ status: 'fresh' });
    recorded.show(7_100);
    expect(recorded.getSnapshot()).toMatchObject({ status: 'stale', ageSeconds: 3 });
    recorded.show(14_500);
    expect(recorded.getSnapshot()).toMatchObject({ status: 'stale', ageSeconds: 10 });
    recorded.show(14_501);
    expect(recorded.getSnapshot()).toEqual({ status: 'gone' });
  });

  it('tells its listeners only when what is shown changes, not every frame', () => {
    const recorded = recording(3);
    const listener = vi.fn();
    recorded.subscribe(listener);
    for (let ms = 600; ms < 1_500; ms += 33) recorded.show(ms);
    expect(listener).toHaveBeenCalledTimes(1);
    recorded.show(1_500);
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it('draws the track of the 3 minutes before the frame shown, not of the whole recording', () => {
    const recorded = recording(600);
    recorded.show(300_500);
    const reading = recorded.getSnapshot();
    if (reading.status !== 'fresh') throw new Error(reading.status);
    expect(reading.sample.altitudeFt).toBe(1_300);
    expect(reading.track).toHaveLength(181);
  });

  it('takes a payload repeated over the following frames as one sample', () => {
    const recorded = new RecordedFlightData();
    const sample = flightSample({ capturedAtMs: 5 });
    recorded.add(sample, 1_000);
    recorded.add({ ...sample }, 1_033);
    recorded.add({ ...sample }, 1_066);
    recorded.show(4_000);
    expect(recorded.getSnapshot()).toMatchObject({ status: 'stale', sample, ageSeconds: 3 });
  });
});
