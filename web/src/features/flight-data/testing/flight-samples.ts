import type { FlightSample } from '../lib/flight-sample';

/** A sample in cruise over the Puget Sound, with what a test sets. For tests only. */
export function flightSample(overrides: Partial<FlightSample> = {}): FlightSample {
  return {
    capturedAtMs: 1_795_000_000_000,
    latitude: 47.45,
    longitude: -122.3,
    altitudeFt: 12_500,
    groundSpeedKt: 142,
    verticalSpeedFpm: 1_200,
    headingDeg: 87,
    phase: 'climb',
    ...overrides,
  };
}
