import { describe, expect, it } from 'vitest';

import { FLIGHT_PHASES } from './figures';
import { flightAt, flightPlan, type Flight } from './flight';

const AIRCRAFT = ['N743AS', 'N953AS', 'N954AS'] as const;
const OTHER_TAILS = ['N1', 'N2', 'N3', 'N4', 'N5', 'C-GABC', 'G-EZUA'];
const G = 9.80665;
const DEGREES = Math.PI / 180;

/** Samples `stepS` apart from just after a loop's start to just after the next loop's start. */
function samples(aircraft: string, stepS: number): { timeS: number; flight: Flight }[] {
  const { loopS, offsetS } = flightPlan(aircraft);
  const loopStartS = Math.ceil((Date.UTC(2026, 10, 29) / 1000 + offsetS) / loopS) * loopS - offsetS;
  const all = [];
  for (let timeS = stepS / 2; timeS <= loopS + stepS; timeS += stepS) {
    all.push({ timeS, flight: flightAt(aircraft, (loopStartS + timeS) * 1000) });
  }
  return all;
}

function metresBetween(a: Flight, b: Flight): number {
  const dLat = (b.latitude - a.latitude) * DEGREES;
  const dLon = (b.longitude - a.longitude) * DEGREES;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * DEGREES) * Math.cos(b.latitude * DEGREES) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

function bearingDeg(a: Flight, b: Flight): number {
  const φ1 = a.latitude * DEGREES;
  const φ2 = b.latitude * DEGREES;
  const Δλ = (b.longitude - a.longitude) * DEGREES;
  const θ = Math.atan2(
    Math.sin(Δλ) * Math.cos(φ2),
    Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(Δλ),
  );
  return (((θ / DEGREES) % 360) + 360) % 360;
}

function angleBetween(a: number, b: number): number {
  return Math.abs(((((b - a) % 360) + 540) % 360) - 180);
}

describe('the synthetic flights', () => {
  it.each([...AIRCRAFT, ...OTHER_TAILS])(
    '%s flies every phase once a loop, in order, each for 10 s or more, the loop 5 to 7 minutes',
    (aircraft) => {
      const plan = flightPlan(aircraft);
      const seen = samples(aircraft, 0.5).map(({ flight }) => flight.phase);
      const runs = seen.filter((phase, index) => index === 0 || seen[index - 1] !== phase);

      expect(runs).toEqual([...FLIGHT_PHASES, 'taxi']);
      expect(plan.loopS).toBeGreaterThanOrEqual(300);
      expect(plan.loopS).toBeLessThanOrEqual(420);
      for (const { phase, startS, endS } of plan.phases) {
        expect(endS - startS, phase).toBeGreaterThanOrEqual(10);
      }
    },
  );

  it.each([...AIRCRAFT, ...OTHER_TAILS])(
    "%s moves without a jump between samples 100 ms apart, across the loop's end too",
    (aircraft) => {
      const all = samples(aircraft, 0.1);
      for (let i = 1; i < all.length; i += 1) {
        const before = all[i - 1]!.flight;
        const after = all[i]!.flight;
        const at = `${aircraft} at ${all[i]!.timeS.toFixed(1)} s (${after.phase})`;
        // 2,500 ft/min is 4.2 ft a tenth of a second; braking at 2.5 m/s² is 0.49 kt.
        expect(Math.abs(after.altitudeFt - before.altitudeFt), at).toBeLessThanOrEqual(4.5);
        expect(Math.abs(after.groundSpeedKt - before.groundSpeedKt), at).toBeLessThanOrEqual(0.5);
        expect(Math.abs(after.verticalSpeedFpm - before.verticalSpeedFpm), at).toBeLessThanOrEqual(
          45,
        );
        expect(angleBetween(before.headingDeg, after.headingDeg), at).toBeLessThanOrEqual(0.35);
        const metresPerTenth =
          ((before.groundSpeedKt + after.groundSpeedKt) / 2) * (1852 / 3600) * 0.1;
        expect(metresBetween(before, after), at).toBeCloseTo(metresPerTenth, 1);
      }
    },
  );

  it.each([...AIRCRAFT, ...OTHER_TAILS])(
    "%s's heading is the direction it moves in, and its turns are banked 30° or less",
    (aircraft) => {
      const all = samples(aircraft, 0.5);
      for (let i = 2; i < all.length; i += 2) {
        const from = all[i - 2]!.flight;
        const middle = all[i - 1]!.flight;
        const to = all[i]!.flight;
        const at = `${aircraft} at ${all[i - 1]!.timeS} s (${middle.phase})`;
        expect(angleBetween(bearingDeg(from, to), middle.headingDeg), at).toBeLessThanOrEqual(0.5);
        const turnRateRadS = (angleBetween(from.headingDeg, to.headingDeg) * DEGREES) / 1;
        const speedMps = middle.groundSpeedKt * (1852 / 3600);
        const bankDeg = Math.atan((speedMps * turnRateRadS) / G) / DEGREES;
        expect(bankDeg, at).toBeLessThanOrEqual(30);
      }
    },
  );

  it.each(AIRCRAFT)(
    '%s flies like an aircraft: taxi, rotation, climb and approach speeds',
    (aircraft) => {
      const plan = flightPlan(aircraft);
      const all = samples(aircraft, 0.5).map(({ flight }) => flight);
      const during = (phase: Flight['phase']) => all.filter((flight) => flight.phase === phase);

      for (const flight of during('taxi')) {
        expect(flight.groundSpeedKt).toBeCloseTo(15, 0);
        expect(flight.altitudeFt).toBeCloseTo(plan.fieldElevationFt, 6);
        expect(flight.headingDeg).toBeCloseTo(plan.runwayHeadingDeg, 6);
      }
      const takeOff = during('takeoff');
      expect(takeOff.at(-1)!.groundSpeedKt).toBeGreaterThan(145); // rotation at 150 kt
      expect(Math.max(...takeOff.map((flight) => flight.altitudeFt))).toBe(plan.fieldElevationFt);
      const climbRates = during('climb').map((flight) => flight.verticalSpeedFpm);
      expect(Math.max(...climbRates)).toBe(2500);
      for (const flight of during('cruise')) {
        expect(flight.altitudeFt).toBeCloseTo(plan.cruiseAltitudeFt, 6);
        expect(flight.verticalSpeedFpm).toBe(0);
      }
      expect(Math.min(...during('descent').map((flight) => flight.verticalSpeedFpm))).toBe(-1800);
      const approach = during('approach');
      expect(approach.at(-1)!.groundSpeedKt).toBeCloseTo(140, 6);
      expect(approach.at(-1)!.verticalSpeedFpm).toBeCloseTo(-743, 0); // a 3° glide path
      expect(approach.at(-1)!.headingDeg).toBeCloseTo(plan.runwayHeadingDeg, 6);
      expect(Math.min(...all.map((flight) => flight.altitudeFt))).toBeCloseTo(
        plan.fieldElevationFt,
        6,
      );
    },
  );

  it('gives the three aircraft their own airfield, circuit and place in the loop', () => {
    const plans = AIRCRAFT.map(flightPlan);
    const now = Date.UTC(2026, 10, 29, 13, 30);
    const flights = AIRCRAFT.map((aircraft) => flightAt(aircraft, now));

    expect(new Set(plans.map((plan) => plan.airport)).size).toBe(3);
    expect(new Set(plans.map((plan) => plan.cruiseAltitudeFt)).size).toBe(3);
    expect(new Set(plans.map((plan) => Math.round(plan.loopS))).size).toBe(3);
    expect(new Set(flights.map((flight) => flight.latitude.toFixed(3))).size).toBe(3);
  });

  it('is a function of the time alone: the same instant gives the same figures, a loop later too', () => {
    const instant = Date.UTC(2026, 10, 29, 13, 31, 2, 345);
    const { loopS } = flightPlan('N953AS');
    const later = flightAt('N953AS', instant + loopS * 1000 * 7);

    expect(flightAt('N953AS', instant)).toEqual(flightAt('N953AS', instant));
    expect(later.phase).toBe(flightAt('N953AS', instant).phase);
    expect(later.altitudeFt).toBeCloseTo(flightAt('N953AS', instant).altitudeFt, 3);
    expect(later.latitude).toBeCloseTo(flightAt('N953AS', instant).latitude, 7);
  });

  it('flies a circuit for any tail number, one named like an object property too, and refuses a time that is no number', () => {
    for (const aircraft of ['constructor', '__proto__', 'toString', '']) {
      const flight = flightAt(aircraft, Date.UTC(2026, 10, 29, 13));
      expect(Number.isFinite(flight.altitudeFt) && Number.isFinite(flight.latitude), aircraft).toBe(
        true,
      );
    }
    expect(() => flightAt('N743AS', Number.NaN)).toThrow(
      new RangeError('epochMs must be a finite number, not NaN'),
    );
  });
});
