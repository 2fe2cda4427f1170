import { describe, expect, it } from 'vitest';

import { figuresFromTelemetry } from './figures';
import { flightAt, flightDataAt, flightPlan } from './flight';
import { decodeFlightData } from './klv';

const AIRCRAFT = ['N743AS', 'N953AS', 'N954AS'] as const;

describe("the HUD's figures through a flight data packet", () => {
  it.each(AIRCRAFT)(
    "%s's figures at every second of its loop come back within what 0601's mappings keep",
    (aircraft) => {
      const { loopS } = flightPlan(aircraft);
      const startMs = Date.UTC(2026, 10, 29, 14);
      for (let second = 0; second < loopS; second += 1) {
        const captureTimeMs = startMs + second * 1000;
        const flight = flightAt(aircraft, captureTimeMs);
        const packet = flightDataAt(aircraft, captureTimeMs);
        const result = decodeFlightData(packet);
        if (!result.ok) throw new Error(result.message);
        const shown = figuresFromTelemetry(result.telemetry);
        const at = `${aircraft} at ${second} s (${flight.phase})`;

        expect(packet.length, at).toBe(72);
        expect(shown.phase, at).toBe(flight.phase);
        expect(result.telemetry.captureTimeMs, at).toBe(captureTimeMs);
        expect(result.telemetry.tailNumber, at).toBe(aircraft);
        // 0.30 m steps: half a foot either way.
        expect(Math.abs(shown.altitudeFt! - flight.altitudeFt), at).toBeLessThanOrEqual(0.5);
        // Whole metres per second: 1.94 kt steps, under 1 kt either way.
        expect(Math.abs(shown.groundSpeedKt! - flight.groundSpeedKt), at).toBeLessThanOrEqual(0.98);
        // 0.0055 m/s steps: about 1.1 ft/min, half of it either way.
        expect(Math.abs(shown.verticalSpeedFpm! - flight.verticalSpeedFpm), at).toBeLessThan(0.6);
        const headingError = Math.abs(
          ((((shown.headingDeg! - flight.headingDeg) % 360) + 540) % 360) - 180,
        );
        expect(headingError, at).toBeLessThan(0.003);
        expect(Math.abs(shown.latitude! - flight.latitude), at).toBeLessThan(1e-7);
        expect(Math.abs(shown.longitude! - flight.longitude), at).toBeLessThan(1e-7);
      }
    },
  );

  it('shows nothing for a figure the packet did not carry, never a zero', () => {
    expect(figuresFromTelemetry({ captureTimeMs: 1, trueAltitudeM: 100 })).toEqual({
      altitudeFt: 328.0839895013123,
    });
  });

  it("reads 0601's statuses that name no phase of a circuit as no phase", () => {
    // 0 Active, 1 Pre-flight, 3 Run-up, 6 Manual operation, 7 Automated-orbit, 12 Landed-Parked
    for (const platformStatus of [0, 1, 3, 6, 7, 12, 200]) {
      expect(figuresFromTelemetry({ platformStatus }), `status ${platformStatus}`).toEqual({});
    }
    expect(figuresFromTelemetry({ platformStatus: 4 })).toEqual({ phase: 'takeoff' });
  });
});
