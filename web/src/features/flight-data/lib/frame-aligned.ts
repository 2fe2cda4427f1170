/**
 * Live samples held until the frame they were captured with is on screen
 * (docs/product.md#flight-data): an in-band message arrives with its frame's packets, tens of
 * milliseconds before that frame is decoded and shown, so the HUD would run ahead of the picture.
 * Each presented frame's capture time (`requestVideoFrameCallback`'s `captureTime`, which the
 * browser maps from the publisher's sender reports; Chromium has it for WebRTC video) lets the
 * samples captured at or before it through. A frame without one (Firefox) lets every sample through
 * at once, and a sample is never held longer than `MAX_HOLD_MS` (a paused or hidden video).
 */
import type { FlightSample } from './flight-sample';

export const MAX_HOLD_MS = 500;
/** The capture clock's rounding: a sample this much after the frame still belongs to it. */
const SAME_FRAME_MS = 5;

export class FrameAlignedSamples {
  private held: { sample: FlightSample; heldAt: number }[] = [];

  constructor(
    private readonly show: (sample: FlightSample) => void,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Whether a sample waits for its frame. */
  get holding(): boolean {
    return this.held.length > 0;
  }

  add(sample: FlightSample): void {
    this.held.push({ sample, heldAt: this.now() });
  }

  /**
   * A frame is on screen, captured at `captureTimeMs` (epoch ms; undefined when the browser does
   * not say): the samples it shows go to the HUD.
   */
  framePresented(captureTimeMs: number | undefined): void {
    const now = this.now();
    const due = this.held.filter(
      ({ sample, heldAt }) =>
        captureTimeMs === undefined ||
        sample.capturedAtMs <= captureTimeMs + SAME_FRAME_MS ||
        now - heldAt >= MAX_HOLD_MS,
    );
    if (due.length === 0) return;
    this.held = this.held.filter((each) => !due.includes(each));
    for (const { sample } of due) this.show(sample);
  }

  /** Lets through what was held too long (no frame came). */
  flushOld(): void {
    this.framePresented(-Infinity);
  }
}
