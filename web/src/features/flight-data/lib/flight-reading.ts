/**
 * What the HUD shows at one instant of a timeline (docs/product.md#flight-data): the live
 * timeline is the viewer's clock, a sample's instant the moment it arrived; a recording's is its
 * media time. A sample is shown as current while fresh, then with its age, then not at all: old
 * figures are never shown as current.
 */
import type { FlightSample } from './flight-sample';

/** A sample a second is expected: up to two and a half seconds, it is the current one. */
export const FRESH_FOR_MS = 2_500;
/** Past that, shown dimmed with its age ('5 s old') up to ten seconds, then hidden. */
export const SHOWN_UNTIL_MS = 10_000;
/** The track: the positions of the last three minutes. */
export const TRACK_WINDOW_MS = 180_000;

export interface TimedSample {
  /** The sample's instant on the timeline (ms). */
  atMs: number;
  sample: FlightSample;
}

export interface TrackPoint {
  latitude: number;
  longitude: number;
}

export type FlightReading =
  /** No sample for this instant (none has come, or the instant is before the first): draw nothing. */
  | { status: 'none' }
  /** The last sample is older than SHOWN_UNTIL_MS: draw nothing. */
  | { status: 'gone' }
  /** The sample is the current one. `track`: positions, oldest first, ending at the sample's. */
  | { status: 'fresh'; sample: FlightSample; track: readonly TrackPoint[] }
  /** The sample is past its time: shown dimmed, with its age. */
  | {
      status: 'stale';
      sample: FlightSample;
      /** Whole seconds since the sample's instant, as shown ('5 s old'). */
      ageSeconds: number;
      track: readonly TrackPoint[];
    };

export const NO_READING: FlightReading = { status: 'none' };

/**
 * The index of the last sample at or before `instantMs` in `samples` (sorted by `atMs`), or -1.
 */
export function lastIndexAtOrBefore(samples: readonly TimedSample[], instantMs: number): number {
  let low = 0;
  let high = samples.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((samples[middle] as TimedSample).atMs <= instantMs) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

/** The reading at `instantMs` of `samples`, sorted by `atMs`. */
export function readingAt(samples: readonly TimedSample[], instantMs: number): FlightReading {
  const index = lastIndexAtOrBefore(samples, instantMs);
  const current = samples[index];
  if (!current) return NO_READING;
  const ageMs = instantMs - current.atMs;
  if (ageMs > SHOWN_UNTIL_MS) return { status: 'gone' };
  const track: TrackPoint[] = [];
  for (let at = index; at >= 0; at -= 1) {
    const { atMs, sample } = samples[at] as TimedSample;
    if (current.atMs - atMs > TRACK_WINDOW_MS) break;
    track.push({ latitude: sample.latitude, longitude: sample.longitude });
  }
  track.reverse();
  if (ageMs <= FRESH_FOR_MS) return { status: 'fresh', sample: current.sample, track };
  return { status: 'stale', sample: current.sample, ageSeconds: Math.round(ageMs / 1000), track };
}

/** Whether two readings draw the same: a new snapshot only when what is shown changes. */
export function sameReading(a: FlightReading, b: FlightReading): boolean {
  if (a.status === 'stale' && b.status === 'stale') {
    return a.sample === b.sample && a.ageSeconds === b.ageSeconds;
  }
  if (a.status === 'fresh' && b.status === 'fresh') return a.sample === b.sample;
  return a.status === b.status && a.status !== 'stale' && a.status !== 'fresh';
}

/** Read by the HUD through `useSyncExternalStore`. */
export interface FlightReadingSource {
  subscribe: (listener: () => void) => () => void;
  getSnapshot: () => FlightReading;
}
