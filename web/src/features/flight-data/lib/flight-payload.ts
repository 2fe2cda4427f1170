/**
 * A video's in-band message as the HUD's sample (docs/flight-data.md): a MISB ST 0601 packet,
 * decoded. A message that is not one (another publisher's data, a broken packet), or one without
 * the figures the HUD shows, is no sample: nothing is drawn from it, never a '0 ft'.
 */
import { figuresFromTelemetry } from '@tailcam/protocol/flight-data/figures';
import { decodeFlightData } from '@tailcam/protocol/flight-data/klv';
import type { FlightSample } from './flight-sample';

export function flightSampleFromPayload(payload: ArrayBuffer): FlightSample | undefined {
  const decoded = decodeFlightData(new Uint8Array(payload));
  if (!decoded.ok) return undefined;
  const { captureTimeMs } = decoded.telemetry;
  const figures = figuresFromTelemetry(decoded.telemetry);
  const { latitude, longitude, altitudeFt, groundSpeedKt, verticalSpeedFpm, headingDeg } = figures;
  if (
    captureTimeMs === undefined ||
    latitude === undefined ||
    longitude === undefined ||
    altitudeFt === undefined ||
    groundSpeedKt === undefined ||
    verticalSpeedFpm === undefined ||
    headingDeg === undefined
  ) {
    return undefined;
  }
  return {
    capturedAtMs: captureTimeMs,
    latitude,
    longitude,
    altitudeFt,
    groundSpeedKt,
    verticalSpeedFpm,
    headingDeg,
    ...(figures.phase === undefined ? {} : { phase: figures.phase }),
  };
}
