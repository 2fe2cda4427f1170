import { describe, expect, it } from 'vitest';
import { figuresFromTelemetry } from '@tailcam/protocol/flight-data/figures';
import { flightAt } from '@tailcam/protocol/flight-data/flight';
import { decodeFlightData } from '@tailcam/protocol/flight-data/klv';
import { parseCameraInBandMessage } from '../camera-link';
import { IVS_SEI_UUID } from '../codecs/in-band';
import { FlightTelemetry, TELEMETRY_REPEAT_COUNT } from './flight-telemetry';

describe('FlightTelemetry', () => {
  it("sends the aircraft's flight at a frame's capture time, once a second of frames", () => {
    const sent: Buffer[] = [];
    const telemetry = new FlightTelemetry('N953AS', (message) => sent.push(message) > 0, 30);
    const start = Date.UTC(2026, 10, 29, 12, 0, 0);
    for (let frame = 0; frame < 90; frame += 1)
      telemetry.frameCaptured(start + frame * (1000 / 30));
    expect(sent).toHaveLength(3);

    const message = parseCameraInBandMessage(sent[1] ?? Buffer.alloc(0));
    expect(message).toMatchObject({
      stageId: 'N953AS',
      captureTimeMs: start + 30 * (1000 / 30),
      repeatCount: TELEMETRY_REPEAT_COUNT,
    });
    expect(message?.uuid).toEqual(IVS_SEI_UUID);
    const decoded = decodeFlightData(message?.payload ?? new Uint8Array());
    if (!decoded.ok) throw new Error(decoded.message);
    const shown = figuresFromTelemetry(decoded.telemetry);
    const truth = flightAt('N953AS', message?.captureTimeMs ?? 0);
    expect(shown.altitudeFt).toBeCloseTo(truth.altitudeFt, -1);
    expect(shown.groundSpeedKt).toBeCloseTo(truth.groundSpeedKt, 0);
    expect(Math.round(decoded.telemetry.captureTimeMs ?? 0)).toBe(
      Math.round(message?.captureTimeMs ?? 0),
    );
  });

  it('tries again at the next frame while the link is closed', () => {
    let open = false;
    const sent: Buffer[] = [];
    const telemetry = new FlightTelemetry(
      'N743AS',
      (message) => open && sent.push(message) > 0,
      30,
    );
    telemetry.frameCaptured(1_000);
    open = true;
    telemetry.frameCaptured(1_033);
    expect(sent).toHaveLength(1);
  });
});
