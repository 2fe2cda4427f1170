import { describe, expect, it } from 'vitest';
import { flightDataAt, flightAt } from '@tailcam/protocol/flight-data/flight';
import { flightSampleFromPayload } from './flight-payload';

const at = Date.UTC(2026, 10, 29, 12, 0, 0);
const buffer = (bytes: Uint8Array) => bytes.slice().buffer;

describe('flightSampleFromPayload', () => {
  it("reads a synthetic camera's packet as the figures of its instant, with the phase", () => {
    const sample = flightSampleFromPayload(buffer(flightDataAt('N743AS', at)));
    const truth = flightAt('N743AS', at);
    expect(sample?.capturedAtMs).toBe(at);
    expect(sample?.altitudeFt).toBeCloseTo(truth.altitudeFt, -1);
    expect(sample?.groundSpeedKt).toBeCloseTo(truth.groundSpeedKt, -1);
    expect(sample?.phase).toBe(truth.phase);
  });

  it('makes no sample of what is not a whole, unbroken 0601 packet', () => {
    expect(flightSampleFromPayload(new ArrayBuffer(0))).toBeUndefined();
    expect(flightSampleFromPayload(buffer(Uint8Array.of(1, 2, 3)))).toBeUndefined();
    const cut = flightDataAt('N743AS', at);
    cut.set([(cut.at(-1) ?? 0) ^ 0xff], cut.length - 1); // its checksum no longer holds
    expect(flightSampleFromPayload(buffer(cut))).toBeUndefined();
  });
});
