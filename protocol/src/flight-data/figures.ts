/**
 * The figures Tailcam shows (altitude in ft, speeds in kt and ft/min, heading in degrees) and
 * their conversion to and from 0601's units (metres, m/s), which the packet carries
 * (docs/flight-data.md says what each mapping loses).
 */
import type { DecodedFlightTelemetry, FlightTelemetry } from './klv';

/** The phases of flight, in the order a flight goes through them. */
export const FLIGHT_PHASES = [
  'taxi',
  'takeoff',
  'climb',
  'cruise',
  'descent',
  'approach',
  'landing',
] as const;

export type FlightPhase = (typeof FLIGHT_PHASES)[number];

/**
 * Each phase as 0601's Platform Status (tag 125). 0601 names ground and mission states, not the
 * phases of a circuit, so climb, cruise and descent borrow its Ingress, Transitioning and Egress;
 * the other statuses (Active, Pre-flight, Run-up, Manual operation, Automated-orbit,
 * Landed-Parked) read as no phase.
 */
const PLATFORM_STATUS_OF_PHASE: Record<FlightPhase, number> = {
  taxi: 2, // Pre-flight-taxiing
  takeoff: 4, // Take-off
  climb: 5, // Ingress
  cruise: 8, // Transitioning
  descent: 9, // Egress
  approach: 10, // Landing
  landing: 11, // Landed-taxiing: the roll-out
};

export function platformStatusOf(phase: FlightPhase): number {
  return PLATFORM_STATUS_OF_PHASE[phase];
}

export function phaseOfPlatformStatus(status: number): FlightPhase | undefined {
  return FLIGHT_PHASES.find((phase) => PLATFORM_STATUS_OF_PHASE[phase] === status);
}

/** An aircraft's position and motion at one instant, in the units the HUD shows. */
export interface FlightFigures {
  /** Degrees north (WGS 84). */
  latitude: number;
  /** Degrees east (WGS 84). */
  longitude: number;
  /** Feet above mean sea level. */
  altitudeFt: number;
  /** Knots over the ground. */
  groundSpeedKt: number;
  /** Feet per minute, positive climbing. */
  verticalSpeedFpm: number;
  /** Degrees clockwise from true north, 0 ≤ heading < 360. */
  headingDeg: number;
  /** What the aircraft is doing, when its publisher says. */
  phase?: FlightPhase;
}

const METRES_PER_FOOT = 0.3048;
const METRES_PER_NAUTICAL_MILE = 1852;

export function feetToMetres(feet: number): number {
  return feet * METRES_PER_FOOT;
}

export function metresToFeet(metres: number): number {
  return metres / METRES_PER_FOOT;
}

export function knotsToMetresPerSecond(knots: number): number {
  return (knots * METRES_PER_NAUTICAL_MILE) / 3600;
}

export function metresPerSecondToKnots(metresPerSecond: number): number {
  return (metresPerSecond * 3600) / METRES_PER_NAUTICAL_MILE;
}

export function feetPerMinuteToMetresPerSecond(feetPerMinute: number): number {
  return (feetPerMinute * METRES_PER_FOOT) / 60;
}

export function metresPerSecondToFeetPerMinute(metresPerSecond: number): number {
  return (metresPerSecond * 60) / METRES_PER_FOOT;
}

/** The packet's content for figures captured at `captureTimeMs` (ms since the Unix epoch). */
export function telemetryFromFigures(
  figures: FlightFigures,
  captureTimeMs: number,
  tailNumber?: string,
): FlightTelemetry {
  return {
    captureTimeMs,
    latitudeDeg: figures.latitude,
    longitudeDeg: figures.longitude,
    trueAltitudeM: feetToMetres(figures.altitudeFt),
    headingDeg: figures.headingDeg,
    groundSpeedMps: knotsToMetresPerSecond(figures.groundSpeedKt),
    verticalSpeedMps: feetPerMinuteToMetresPerSecond(figures.verticalSpeedFpm),
    ...(tailNumber === undefined ? {} : { tailNumber }),
    ...(figures.phase === undefined ? {} : { platformStatus: platformStatusOf(figures.phase) }),
  };
}

/**
 * The figures a decoded packet holds, in the HUD's units; a figure the packet did not carry is
 * missing here too, so that nothing shows "0 ft" for a publisher that sends no altitude.
 */
export function figuresFromTelemetry(telemetry: DecodedFlightTelemetry): Partial<FlightFigures> {
  const figures: Partial<FlightFigures> = {};
  if (telemetry.latitudeDeg !== undefined) figures.latitude = telemetry.latitudeDeg;
  if (telemetry.longitudeDeg !== undefined) figures.longitude = telemetry.longitudeDeg;
  if (telemetry.trueAltitudeM !== undefined) {
    figures.altitudeFt = metresToFeet(telemetry.trueAltitudeM);
  }
  if (telemetry.groundSpeedMps !== undefined) {
    figures.groundSpeedKt = metresPerSecondToKnots(telemetry.groundSpeedMps);
  }
  if (telemetry.verticalSpeedMps !== undefined) {
    figures.verticalSpeedFpm = metresPerSecondToFeetPerMinute(telemetry.verticalSpeedMps);
  }
  if (telemetry.headingDeg !== undefined) figures.headingDeg = telemetry.headingDeg % 360;
  const phase =
    telemetry.platformStatus === undefined
      ? undefined
      : phaseOfPlatformStatus(telemetry.platformStatus);
  if (phase !== undefined) figures.phase = phase;
  return figures;
}
