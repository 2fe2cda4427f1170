import {
  NO_READING,
  readingAt,
  sameReading,
  type FlightReading,
  type FlightReadingSource,
  type TimedSample,
} from './flight-reading';
import type { FlightSample } from './flight-sample';

/**
 * The flight data of a recording: `add` each sample with its media time, in any order (a seek
 * back may feed some again); `show` the media time of the frame on screen, and the snapshot is
 * what the HUD shows for that frame: the sample of that instant, its age counted in media time,
 * so a paused picture keeps its figures and a gap in the recording's data shows its age, then
 * nothing.
 */
export class RecordedFlightData implements FlightReadingSource {
  private readonly samples: TimedSample[] = [];
  private shownAtMs: number | undefined;
  private reading: FlightReading = NO_READING;
  private readonly listeners = new Set<() => void>();

  /** A sample and the media time (ms) of the frame it came with. A repeat changes nothing. */
  add(sample: FlightSample, mediaTimeMs: number): void {
    if (!Number.isFinite(mediaTimeMs)) return;
    const at = this.samples.findLastIndex((kept) => kept.atMs <= mediaTimeMs);
    const before = this.samples[at];
    if (before?.sample.capturedAtMs === sample.capturedAtMs) return;
    this.samples.splice(at + 1, 0, { atMs: mediaTimeMs, sample });
    // A sample added behind the shown one changes its track: always a new snapshot.
    this.recompute(true);
  }

  /** The media time (ms) of the frame on screen. */
  show(mediaTimeMs: number): void {
    if (!Number.isFinite(mediaTimeMs) || mediaTimeMs === this.shownAtMs) return;
    this.shownAtMs = mediaTimeMs;
    this.recompute(false);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): FlightReading => this.reading;

  private recompute(samplesChanged: boolean): void {
    if (this.shownAtMs === undefined) return;
    const next = readingAt(this.samples, this.shownAtMs);
    if (!samplesChanged && sameReading(next, this.reading)) return;
    this.reading = next;
    for (const listener of [...this.listeners]) listener();
  }
}
