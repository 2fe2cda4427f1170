/**
 * Feeds a recording's flight data (decision 0096) to its store as the picture plays: the data of
 * the segments around the playhead, each sample at its frame's media time on the video's own
 * timeline (the segment's start there, plus the record's time in the segment). Only what is near
 * the playhead is fetched; the segment being written is read again now and then while the
 * playhead is in it, since its data grows with it.
 */
import { readFlightRecords } from '@tailcam/protocol/flight-data/recorded';
import { flightSampleFromPayload } from './flight-payload';
import type { RecordedFlightData } from './recorded-flight-data';

export interface RecordedFlightSegment {
  /** The same segment in two lists is the same key. */
  key: string;
  /** Where it starts on the video's media timeline, ms. */
  startMs: number;
  /** Undefined while it is being written. */
  durationMs: number | undefined;
  /** Its flight data file's bytes; undefined when it has none. */
  load(signal: AbortSignal): Promise<ArrayBuffer | undefined>;
}

/** Fetched behind the playhead (an age to show after a seek) and ahead of it. */
const BEHIND_MS = 12_000;
const AHEAD_MS = 20_000;
/** How often the segment being written is read again while the playhead is near it. */
const GROWING_RELOAD_MS = 2_000;
/** A fetch that failed is tried again after this long. */
const RETRY_MS = 5_000;

export class RecordedFlightLoader {
  private segments: readonly RecordedFlightSegment[] = [];
  /** Each segment's last load: when it started, whether it is under way, when to load again. */
  private readonly loads = new Map<string, { atMs: number; busy: boolean; againAtMs: number }>();
  private readonly abort = new AbortController();
  private playheadMs: number | undefined;

  constructor(
    private readonly store: RecordedFlightData,
    private readonly now: () => number = () => Date.now(),
  ) {}

  setSegments(segments: readonly RecordedFlightSegment[]): void {
    this.segments = segments;
    if (this.playheadMs !== undefined) this.at(this.playheadMs);
  }

  /** The picture is at `mediaMs`: fetches what is near it and not had yet. */
  at(mediaMs: number): void {
    if (!Number.isFinite(mediaMs) || this.abort.signal.aborted) return;
    this.playheadMs = mediaMs;
    for (const segment of this.segments) {
      const end =
        segment.durationMs === undefined
          ? Number.POSITIVE_INFINITY
          : segment.startMs + segment.durationMs;
      if (end < mediaMs - BEHIND_MS || segment.startMs > mediaMs + AHEAD_MS) continue;
      const load = this.loads.get(segment.key);
      if (load && (load.busy || this.now() < load.againAtMs)) continue;
      void this.load(segment);
    }
  }

  dispose(): void {
    this.abort.abort();
  }

  private async load(segment: RecordedFlightSegment): Promise<void> {
    const entry = { atMs: this.now(), busy: true, againAtMs: Number.POSITIVE_INFINITY };
    this.loads.set(segment.key, entry);
    try {
      const bytes = await segment.load(this.abort.signal);
      // A finished segment's data is had once; the one being written grows.
      if (segment.durationMs === undefined) entry.againAtMs = entry.atMs + GROWING_RELOAD_MS;
      if (this.abort.signal.aborted || !bytes) return;
      for (const record of readFlightRecords(new Uint8Array(bytes))) {
        const payload = new Uint8Array(record.payload).buffer;
        const sample = flightSampleFromPayload(payload);
        if (sample) this.store.add(sample, segment.startMs + record.timeMs);
      }
    } catch {
      // No figures rather than a broken picture: tried again a little later.
      entry.againAtMs = entry.atMs + RETRY_MS;
    } finally {
      entry.busy = false;
    }
  }
}
