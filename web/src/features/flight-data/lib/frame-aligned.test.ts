import { describe, expect, it } from 'vitest';
import { flightSample } from '../testing/flight-samples';

const sampleAt = (capturedAtMs: number) => flightSample({ capturedAtMs });
import { FrameAlignedSamples, MAX_HOLD_MS } from './frame-aligned';

describe('FrameAlignedSamples', () => {
  it('holds a sample until the frame captured with it is on screen', () => {
    const shown: number[] = [];
    const samples = new FrameAlignedSamples(
      (sample) => shown.push(sample.capturedAtMs),
      () => 0,
    );
    samples.add(sampleAt(10_000));
    samples.framePresented(9_967); // the frame before it
    expect(shown).toEqual([]);
    samples.framePresented(10_000);
    expect(shown).toEqual([10_000]);
  });

  it('lets every sample through at once where frames say no capture time', () => {
    const shown: number[] = [];
    const samples = new FrameAlignedSamples(
      (sample) => shown.push(sample.capturedAtMs),
      () => 0,
    );
    samples.add(sampleAt(10_000));
    samples.framePresented(undefined);
    expect(shown).toEqual([10_000]);
  });

  it('never holds a sample longer than its bound, frames or not', () => {
    const shown: number[] = [];
    let now = 0;
    const samples = new FrameAlignedSamples(
      (sample) => shown.push(sample.capturedAtMs),
      () => now,
    );
    samples.add(sampleAt(10_000));
    now = MAX_HOLD_MS - 1;
    samples.flushOld();
    expect(shown).toEqual([]);
    now = MAX_HOLD_MS;
    samples.flushOld();
    expect(shown).toEqual([10_000]);
  });
});
