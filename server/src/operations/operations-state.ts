/**
 * What the operator's page reads (decision 0098): each aircraft's on-air state, since when, its
 * publisher's bitrate and its viewers, and the newest events, with a version that a long poll
 * waits on. The stage's event feed (stage-event-feed.ts) writes it; `GET /api/operations` reads
 * it through the `OperationsState` interface only.
 */

import type {
  AircraftOperations,
  OperationsEvent,
  OperationsSnapshot,
} from '@tailcam/protocol/operations';

export type { AircraftOperations, OperationsEvent, OperationsSnapshot };

export interface OperationsState {
  /** events: the newest 20, newest first. */
  snapshot(): OperationsSnapshot;
  /** Resolves once the version is past `afterVersion` (at once if it already is), or when `signal` aborts. */
  changed(afterVersion: number, signal: AbortSignal): Promise<void>;
}

/** The page lists this many events. */
export const OPERATIONS_EVENTS_KEPT = 20;

type AircraftPatch = Partial<Omit<AircraftOperations, 'aircraft'>>;

/** The writable state: one per API process, written by the feed, read by the route. */
export class OperationsStateStore implements OperationsState {
  #version = 1;
  readonly #aircraft = new Map<string, AircraftOperations>();
  /** Newest first. */
  #events: OperationsEvent[] = [];
  readonly #waiters = new Set<() => void>();

  constructor(aircraft: readonly string[]) {
    for (const id of aircraft) {
      this.#aircraft.set(id, {
        aircraft: id,
        onAir: false,
        since: null,
        bitrate: null,
        viewers: 0,
      });
    }
  }

  snapshot(): OperationsSnapshot {
    return {
      version: this.#version,
      aircraft: [...this.#aircraft.values()].map((entry) => ({ ...entry })),
      events: this.#events.map((event) => ({ ...event })),
    };
  }

  changed(afterVersion: number, signal: AbortSignal): Promise<void> {
    if (this.#version > afterVersion || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#waiters.delete(wake);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const wake = () => {
        if (this.#version > afterVersion) done();
      };
      this.#waiters.add(wake);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Changes one aircraft's entry; an unknown aircraft or a patch that changes nothing is ignored. */
  update(aircraft: string, patch: AircraftPatch): void {
    const entry = this.#aircraft.get(aircraft);
    if (entry === undefined) return;
    const next = { ...entry, ...patch };
    if (
      next.onAir === entry.onAir &&
      next.since === entry.since &&
      next.bitrate === entry.bitrate &&
      next.viewers === entry.viewers
    ) {
      return;
    }
    this.#aircraft.set(aircraft, next);
    this.#bump();
  }

  aircraft(aircraft: string): AircraftOperations | undefined {
    const entry = this.#aircraft.get(aircraft);
    return entry === undefined ? undefined : { ...entry };
  }

  /** Records an event; the same id twice (a redelivered stage event) is kept once. */
  addEvent(event: OperationsEvent): void {
    if (this.#events.some((kept) => kept.id === event.id)) return;
    this.#events = [event, ...this.#events]
      .sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0))
      .slice(0, OPERATIONS_EVENTS_KEPT);
    this.#bump();
  }

  #bump(): void {
    this.#version += 1;
    for (const wake of [...this.#waiters]) wake();
  }
}
