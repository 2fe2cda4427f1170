/**
 * The synthetic cameras' flights (docs/flight-data.md): each aircraft flies a circuit from its
 * own airfield on a loop of a few minutes (taxi, takeoff, climb, cruise, descent, approach,
 * landing, and round again), a pure function of the time, so that the camera process that sends
 * the figures and a test that checks what the player shows compute the same figures for the
 * same instant.
 *
 * The speeds and vertical speeds are piecewise linear in time and their integrals give the
 * distance flown and the altitude, so nothing jumps. The ground track is a racetrack (a straight
 * leg through the runway, a half circle, the opposite leg, a half circle back onto the runway's
 * line) whose size is chosen so that one lap is the distance flown in one loop: the aircraft is
 * back where it started, at the speed it started with, when the loop starts again.
 */
import {
  FLIGHT_PHASES,
  knotsToMetresPerSecond,
  telemetryFromFigures,
  type FlightFigures,
  type FlightPhase,
} from './figures';
import { encodeFlightData } from './klv';

/** What the aircraft is doing at one instant, in the units the HUD shows. */
export interface Flight extends FlightFigures {
  phase: FlightPhase;
}

/** One aircraft's loop, for the docs and the tests: where it flies and when each phase is. */
export interface FlightPlan {
  airport: string;
  fieldElevationFt: number;
  runwayHeadingDeg: number;
  cruiseAltitudeFt: number;
  /** The loop's length in seconds. */
  loopS: number;
  /** Where in its loop the aircraft is at the Unix epoch (seconds). */
  offsetS: number;
  /** Each phase's start and end, in seconds from the start of the loop. */
  phases: { phase: FlightPhase; startS: number; endS: number }[];
  /** The radius of the circuit's two half circles, metres. */
  turnRadiusM: number;
}

interface Circuit {
  airport: string;
  /** Where the take-off roll starts (degrees; near the runway's threshold, not for navigation). */
  latitude: number;
  longitude: number;
  fieldElevationFt: number;
  /** The runway's true heading, degrees. */
  runwayHeadingDeg: number;
  turn: 'left' | 'right';
  cruiseAglFt: number;
  /** Both half circles' radius, metres: 2,000 m is a 28° bank at the climb's 200 kt. */
  turnRadiusM: number;
  offsetS: number;
}

const CIRCUITS: Readonly<Record<'N743AS' | 'N953AS' | 'N954AS', Circuit>> = {
  N743AS: {
    airport: 'KSEA Seattle-Tacoma, runway 16L',
    latitude: 47.4638,
    longitude: -122.3079,
    fieldElevationFt: 433,
    runwayHeadingDeg: 180,
    turn: 'left',
    cruiseAglFt: 3000,
    turnRadiusM: 2_200,
    offsetS: 0,
  },
  N953AS: {
    airport: 'PANC Anchorage, runway 7R',
    latitude: 61.1685,
    longitude: -150.024,
    fieldElevationFt: 152,
    runwayHeadingDeg: 74,
    turn: 'right',
    cruiseAglFt: 3500,
    turnRadiusM: 2_500,
    offsetS: 110,
  },
  N954AS: {
    airport: 'KPDX Portland, runway 10R',
    latitude: 45.593,
    longitude: -122.615,
    fieldElevationFt: 31,
    runwayHeadingDeg: 115,
    turn: 'left',
    cruiseAglFt: 2500,
    turnRadiusM: 2_000,
    offsetS: 220,
  },
};

// The profile every aircraft flies (a light jet on a short demo circuit).
const TAXI_KT = 15;
const TAXI_S = 20;
const ROTATE_KT = 150;
const TAKE_OFF_ROLL_S = 30;
const CLIMB_KT = 200;
const CLIMB_ACCELERATION_S = 60;
const CLIMB_FPM = 2500;
const DESCENT_FPM = 1800;
const APPROACH_ENTRY_KT = 170;
const APPROACH_KT = 140;
const APPROACH_SLOWING_S = 15;
const APPROACH_AGL_FT = 1000;
/** A 3° glide path at the approach speed. */
const APPROACH_FPM = ((APPROACH_KT * 1852) / 0.3048 / 60) * Math.tan((3 * Math.PI) / 180);
const FLARE_S = 4;
const BRAKING_MPS2 = 2.5;
/** How long a vertical speed takes to change from level to a climb or a descent. */
const VERTICAL_RAMP_S = 6;
/** The runway heading is held this long after lift-off before the first turn. */
const CLIMB_OUT_STRAIGHT_S = 15;
/** The final straight starts this long into the approach. */
const FINAL_STRAIGHT_FROM_APPROACH_S = 40;
const EARTH_RADIUS_M = 6_371_000;

type Knots = readonly (readonly [timeS: number, value: number])[];

interface Loop {
  circuit: Circuit;
  plan: FlightPlan;
  speedKt: Knots;
  verticalSpeedFpm: Knots;
  /** Distance flown from the start of the loop to where the final straight starts, metres. */
  finalStraightAtM: number;
  /** Length of each straight leg, metres. */
  legM: number;
  /** Along-track position of the take-off roll's start, from the final straight's start. */
  takeOffAtM: number;
}

/** The aircraft's loop: its phases and their times, its airfield and the size of its circuit. */
export function flightPlan(aircraft: string): FlightPlan {
  return loopOf(aircraft).plan;
}

/** Where the aircraft is and what it is doing at `epochMs` (ms since the Unix epoch). */
export function flightAt(aircraft: string, epochMs: number): Flight {
  if (!Number.isFinite(epochMs))
    throw new RangeError(`epochMs must be a finite number, not ${epochMs}`);
  const loop = loopOf(aircraft);
  const { circuit, plan } = loop;
  const loopS = plan.loopS;
  const t = (((epochMs / 1000 + plan.offsetS) % loopS) + loopS) % loopS;
  const distanceM = knotsToMetresPerSecond(integral(loop.speedKt, t));
  const trackM = 2 * loop.legM + 2 * Math.PI * plan.turnRadiusM;
  const along = (distanceM - loop.finalStraightAtM + trackM) % trackM;
  const { forwardM, rightM, turnedDeg } = racetrack(
    along,
    loop.legM,
    plan.turnRadiusM,
    circuit.turn,
  );
  const position = offsetPosition(circuit, forwardM - loop.takeOffAtM, rightM);
  const phase = plan.phases.find((entry) => t < entry.endS)?.phase ?? 'landing';
  return {
    phase,
    latitude: position.latitude,
    longitude: position.longitude,
    altitudeFt: circuit.fieldElevationFt + integral(loop.verticalSpeedFpm, t) / 60,
    groundSpeedKt: valueAt(loop.speedKt, t),
    verticalSpeedFpm: valueAt(loop.verticalSpeedFpm, t),
    headingDeg: (((circuit.runwayHeadingDeg + turnedDeg) % 360) + 360) % 360,
  };
}

/**
 * The flight data packet a synthetic camera sends for its frame captured at `captureTimeMs`:
 * `flightAt` of that instant, with the tail number and the phase (docs/flight-data.md).
 */
export function flightDataAt(aircraft: string, captureTimeMs: number): Uint8Array {
  const flight = flightAt(aircraft, captureTimeMs);
  return encodeFlightData(telemetryFromFigures(flight, captureTimeMs, aircraft));
}

function loopOf(aircraft: string): Loop {
  const circuit = Object.hasOwn(CIRCUITS, aircraft)
    ? CIRCUITS[aircraft as keyof typeof CIRCUITS]
    : circuitFor(aircraft);
  // The straight legs do not depend on how long the cruise is; the cruise is as long as the
  // racetrack with the circuit's turns needs.
  const first = profile(circuit, 0);
  const legM = first.lengthM(first.loopS) - first.finalStraightAtM + first.climbOutEndM;
  const missingM = 2 * Math.PI * circuit.turnRadiusM + 2 * legM - first.lengthM(first.loopS);
  const { speedKt, verticalSpeedFpm, bounds, loopS, finalStraightAtM, lengthM } = profile(
    circuit,
    missingM / knotsToMetresPerSecond(CLIMB_KT),
  );
  return {
    circuit,
    speedKt,
    verticalSpeedFpm,
    finalStraightAtM,
    legM,
    takeOffAtM: lengthM(loopS) - finalStraightAtM + lengthM(TAXI_S),
    plan: {
      airport: circuit.airport,
      fieldElevationFt: circuit.fieldElevationFt,
      runwayHeadingDeg: circuit.runwayHeadingDeg,
      cruiseAltitudeFt: circuit.fieldElevationFt + circuit.cruiseAglFt,
      loopS,
      offsetS: circuit.offsetS,
      phases: FLIGHT_PHASES.map((phase, index) => ({
        phase,
        startS: index === 0 ? 0 : (bounds[index - 1] ?? 0),
        endS: bounds[index] ?? loopS,
      })),
      turnRadiusM: circuit.turnRadiusM,
    },
  };
}

/** The speeds and vertical speeds of one loop with a cruise of `cruiseS` seconds. */
function profile(circuit: Circuit, cruiseS: number) {
  const takeOffS = TAXI_S;
  const liftOffS = takeOffS + TAKE_OFF_ROLL_S;
  const climbEndS = liftOffS + (circuit.cruiseAglFt / CLIMB_FPM) * 60 + VERTICAL_RAMP_S;
  const descentS = climbEndS + cruiseS;
  const approachS = descentS + descentDurationS(circuit.cruiseAglFt);
  const flareLossFt = (APPROACH_FPM / 2) * (FLARE_S / 60);
  const landingS = approachS + ((APPROACH_AGL_FT - flareLossFt) / APPROACH_FPM) * 60;
  const touchdownS = landingS + FLARE_S;
  const loopS =
    touchdownS +
    (knotsToMetresPerSecond(APPROACH_KT) - knotsToMetresPerSecond(TAXI_KT)) / BRAKING_MPS2;
  const speedKt: Knots = [
    [0, TAXI_KT],
    [takeOffS, TAXI_KT],
    [liftOffS, ROTATE_KT],
    [liftOffS + CLIMB_ACCELERATION_S, CLIMB_KT],
    [descentS, CLIMB_KT],
    [approachS, APPROACH_ENTRY_KT],
    [approachS + APPROACH_SLOWING_S, APPROACH_KT],
    [touchdownS, APPROACH_KT],
    [loopS, TAXI_KT],
  ];
  const verticalSpeedFpm: Knots = [
    [0, 0],
    [liftOffS, 0],
    [liftOffS + VERTICAL_RAMP_S, CLIMB_FPM],
    [climbEndS - VERTICAL_RAMP_S, CLIMB_FPM],
    [climbEndS, 0],
    [descentS, 0],
    [descentS + VERTICAL_RAMP_S, -DESCENT_FPM],
    [approachS - VERTICAL_RAMP_S, -DESCENT_FPM],
    [approachS, -APPROACH_FPM],
    [landingS, -APPROACH_FPM],
    [touchdownS, 0],
    [loopS, 0],
  ];
  const lengthM = (timeS: number) => knotsToMetresPerSecond(integral(speedKt, timeS));
  return {
    speedKt,
    verticalSpeedFpm,
    loopS,
    lengthM,
    bounds: [takeOffS, liftOffS, climbEndS, descentS, approachS, landingS, loopS],
    finalStraightAtM: lengthM(approachS + FINAL_STRAIGHT_FROM_APPROACH_S),
    climbOutEndM: lengthM(liftOffS + CLIMB_OUT_STRAIGHT_S),
  };
}

/** The descent from cruise to the approach's start, its ramps in and out included. */
function descentDurationS(cruiseAglFt: number): number {
  const rampInLossFt = (DESCENT_FPM / 2) * (VERTICAL_RAMP_S / 60);
  const rampOutLossFt = ((DESCENT_FPM + APPROACH_FPM) / 2) * (VERTICAL_RAMP_S / 60);
  const steadyLossFt = cruiseAglFt - APPROACH_AGL_FT - rampInLossFt - rampOutLossFt;
  return 2 * VERTICAL_RAMP_S + (steadyLossFt / DESCENT_FPM) * 60;
}

/** Any other aircraft flies one of the three circuits, at its own altitude and place in it. */
function circuitFor(aircraft: string): Circuit {
  let hash = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < aircraft.length; i += 1) {
    hash = Math.imul(hash ^ aircraft.charCodeAt(i), 0x01000193) >>> 0;
  }
  const bases = Object.values(CIRCUITS);
  const base = bases[hash % bases.length] ?? CIRCUITS.N743AS;
  return {
    ...base,
    cruiseAglFt: 2500 + ((hash >>> 4) % 2) * 500,
    turn: (hash >>> 8) % 2 === 0 ? 'left' : 'right',
    offsetS: (hash >>> 12) % 300,
  };
}

/**
 * A point `along` metres around the racetrack from the start of the final straight: metres
 * forward along the runway's line and to its right, and how far the track has turned (degrees,
 * clockwise).
 */
function racetrack(
  along: number,
  legM: number,
  radiusM: number,
  turn: 'left' | 'right',
): { forwardM: number; rightM: number; turnedDeg: number } {
  const side = turn === 'right' ? 1 : -1;
  const halfCircleM = Math.PI * radiusM;
  if (along < legM) return { forwardM: along, rightM: 0, turnedDeg: 0 };
  if (along < legM + halfCircleM) {
    const angle = (along - legM) / radiusM;
    return {
      forwardM: legM + radiusM * Math.sin(angle),
      rightM: side * radiusM * (1 - Math.cos(angle)),
      turnedDeg: (side * angle * 180) / Math.PI,
    };
  }
  if (along < 2 * legM + halfCircleM) {
    return { forwardM: 2 * legM + halfCircleM - along, rightM: side * 2 * radiusM, turnedDeg: 180 };
  }
  const angle = (along - 2 * legM - halfCircleM) / radiusM;
  return {
    forwardM: -radiusM * Math.sin(angle),
    rightM: side * radiusM * (1 + Math.cos(angle)),
    turnedDeg: 180 + (side * angle * 180) / Math.PI,
  };
}

/** The point `forwardM` along the runway's heading and `rightM` to its right of the roll's start. */
function offsetPosition(
  circuit: Circuit,
  forwardM: number,
  rightM: number,
): { latitude: number; longitude: number } {
  const heading = (circuit.runwayHeadingDeg * Math.PI) / 180;
  const northM = forwardM * Math.cos(heading) - rightM * Math.sin(heading);
  const eastM = forwardM * Math.sin(heading) + rightM * Math.cos(heading);
  const latitudeRad = (circuit.latitude * Math.PI) / 180;
  return {
    latitude: circuit.latitude + ((northM / EARTH_RADIUS_M) * 180) / Math.PI,
    longitude:
      circuit.longitude + ((eastM / (EARTH_RADIUS_M * Math.cos(latitudeRad))) * 180) / Math.PI,
  };
}

/** A piecewise linear function's value at `timeS` (held flat past its last knot). */
function valueAt(knots: Knots, timeS: number): number {
  for (let i = 1; i < knots.length; i += 1) {
    const [t1, v1] = knots[i] as readonly [number, number];
    const [t0, v0] = knots[i - 1] as readonly [number, number];
    if (timeS <= t1) return t1 === t0 ? v1 : v0 + ((v1 - v0) * (timeS - t0)) / (t1 - t0);
  }
  return knots[knots.length - 1]?.[1] ?? 0;
}

/** The integral of a piecewise linear function from its first knot to `timeS` (value × s). */
function integral(knots: Knots, timeS: number): number {
  let sum = 0;
  for (let i = 1; i < knots.length; i += 1) {
    const [t1] = knots[i] as readonly [number, number];
    const [t0, v0] = knots[i - 1] as readonly [number, number];
    const end = Math.min(timeS, t1);
    if (end <= t0) break;
    sum += ((v0 + valueAt(knots, end)) / 2) * (end - t0);
  }
  return sum;
}
