import {
  FLIGHT_PHASES,
  type FlightFigures,
  type FlightPhase,
} from '@tailcam/protocol/flight-data/figures';

/**
 * One telemetry sample as the player receives it, decoded from the payload the publisher puts in
 * its video (docs/product.md#flight-data): the figures in the cockpit's units (feet, knots, feet a
 * minute), and when they were captured.
 */
export interface FlightSample extends Omit<FlightFigures, 'phase'> {
  /** When the publisher captured it, on the publisher's clock (ms since the epoch). */
  capturedAtMs: number;
  /** One of FLIGHT_PHASES; any other value is shown and announced as no phase. */
  phase?: string;
}

// The phases of flight the HUD names and announces, in the order a flight goes through them: the
// payload's own (docs/flight-data.md).
export { FLIGHT_PHASES, type FlightPhase };

export function flightPhaseOf(sample: FlightSample): FlightPhase | undefined {
  return FLIGHT_PHASES.find((phase) => phase === sample.phase);
}
