import {
  FRESH_FOR_MS,
  NO_READING,
  readingAt,
  sameReading,
  SHOWN_UNTIL_MS,
  TRACK_WINDOW_MS,
  type FlightReading,
  type FlightReadingSource,
  type TimedSample,
} from './flight-reading';
import type { FlightSample } from './flight-sample';

export interface FlightClock {
  now: () => number;
  setTimeout: (run: () => void, delayMs: number) => unknown;
  clearTimeout: (timer: unknown) => void;
}

// Read when called, so that a test's fake timers stand in.
const browserClock: FlightClock = {
  now: () => Date.now(),
  setTimeout: (run, delayMs) => setTimeout(run, delayMs),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

/**
 * The flight data of one live stream: `push` each sample as it arrives; the snapshot is what the
 * HUD shows now. A sample's instant is its arrival on the viewer's clock, not its capture time:
 * the publisher's clock may be off from the viewer's, and a sample comes with its frame. Its age
 * counts from there, and the snapshot moves on by itself (fresh, then each second of age while
 * stale, then gone); after that, no timer runs until the next sample. Call `dispose` when done.
 */
export class LiveFlightData implements FlightReadingSource {
  private samples: TimedSample[] = [];
  private reading: FlightReading = NO_READING;
  private readonly listeners = new Set<() => void>();
  private timer: unknown;

  constructor(private readonly clock: FlightClock = browserClock) {}

  /**
   * A sample as it arrives. A repeat of one already had (publishers repeat each payload over
   * several frames), or one captured before it, changes nothing: it is not newer data.
   */
  push(sample: FlightSample): void {
    const latest = this.samples.at(-1);
    if (latest && sample.capturedAtMs <= latest.sample.capturedAtMs) return;
    const atMs = this.clock.now();
    this.samples.push({ atMs, sample });
    const firstKept = this.samples.findIndex((kept) => atMs - kept.atMs <= TRACK_WINDOW_MS);
    if (firstKept > 0) this.samples.splice(0, firstKept);
    this.update();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): FlightReading => this.reading;

  /** Stops its timer (a sample pushed after starts it again). */
  dispose(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private update(): void {
    const now = this.clock.now();
    const next = readingAt(this.samples, now);
    if (!sameReading(next, this.reading)) {
      this.reading = next;
      for (const listener of [...this.listeners]) listener();
    }
    this.clock.clearTimeout(this.timer);
    const wait = this.untilNextChange(now);
    if (wait !== undefined) this.timer = this.clock.setTimeout(() => this.update(), wait);
  }

  /**
   * How long until what is shown changes: fresh to stale, then each second of age (on the half
   * second, where it rounds up), then gone. A millisecond past each bound, which is inclusive.
   */
  private untilNextChange(now: number): number | undefined {
    const latest = this.samples.at(-1);
    if (!latest) return undefined;
    const ageMs = now - latest.atMs;
    if (ageMs > SHOWN_UNTIL_MS) return undefined;
    if (ageMs <= FRESH_FOR_MS) return FRESH_FOR_MS - ageMs + 1;
    const nextHalfSecond = Math.floor((ageMs - 500) / 1000 + 1) * 1000 + 500;
    return Math.min(nextHalfSecond, SHOWN_UNTIL_MS) - ageMs + 1;
  }
}
