/**
 * Turns the stage's feed into what operators see and hear (decision 0098): each answer's events
 * become IVS-shaped webhook events (queued on disk before anything else moves), and each
 * aircraft's state now (its publishers, bitrate, viewers) updates the operations state. An
 * aircraft whose last publisher went is still on air for the grace (OFF_AIR_GRACE_SECONDS); once
 * it has been gone longer, it is off air since the moment it went, and an off-air event is sent.
 * What it remembers per aircraft is saved with the feed's cursor, so an API restarted during the
 * grace still says it once, with the same id.
 */
import type { StageEventsAnswer } from '@tailcam/protocol/stage-control';
import {
  OFF_AIR_EVENT_NAME,
  offAirEvent,
  stageUpdateEvent,
  type DeliveredEvent,
} from './ivs-events';
import type { OperationsStateStore } from './operations-state';

/** What is kept of an aircraft across restarts. */
export interface AircraftMemory {
  onAir: boolean;
  /** ISO: when the current state began; null if unknown. */
  since: string | null;
  /** ISO: when its last publisher went, while the grace runs. */
  goneAt: string | null;
}

export interface OnAirWatchOptions {
  aircraft: readonly string[];
  state: OperationsStateStore;
  graceMs: number;
  /** Queues the events (resolves once they are on disk). */
  publish(events: readonly DeliveredEvent[]): Promise<void>;
  /** Saves `memory()` (with the feed's cursor). */
  persist(): Promise<void>;
  log: {
    info(details: object, message: string): void;
    warn(details: object, message: string): void;
  };
  now?: () => number;
}

/** The events the operator's page lists: publishers coming and going, and off air. */
const PAGE_EVENTS = new Set(['Participant Published', 'Participant Unpublished']);

export class OnAirWatch {
  private readonly aircraft = new Map<string, AircraftMemory>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;
  /** Whether the last answer named a connected publisher (undefined before the first). */
  private publishing: boolean | undefined;

  constructor(private readonly options: OnAirWatchOptions) {
    for (const id of options.aircraft) {
      this.aircraft.set(id, { onAir: false, since: null, goneAt: null });
    }
  }

  /** What a previous run saved; the page shows it until the stage's first answer. */
  restore(saved: Record<string, AircraftMemory>): void {
    for (const [id, memory] of Object.entries(saved)) {
      if (!this.aircraft.has(id)) continue;
      this.aircraft.set(id, { ...memory });
      this.options.state.update(id, { onAir: memory.onAir, since: memory.since });
    }
  }

  memory(): Record<string, AircraftMemory> {
    return Object.fromEntries([...this.aircraft].map(([id, memory]) => [id, { ...memory }]));
  }

  /**
   * Whether a publisher sends video now, or may (an aircraft in its grace, or restored on air):
   * the feed then asks more often, for the bitrate. Sleeping cameras send none.
   */
  get anyPublishing(): boolean {
    return (
      this.publishing ||
      [...this.aircraft.values()].some((memory) => memory.onAir && memory.goneAt !== null)
    );
  }

  /** One answer of the stage's feed: its events queued, then each aircraft updated. */
  async apply(answer: StageEventsAnswer): Promise<void> {
    const { state } = this.options;
    const delivered = answer.events.map((event) => stageUpdateEvent(answer.run, event));
    await this.options.publish(delivered);
    const lastGone = new Map<string, string>();
    answer.events.forEach((event, index) => {
      if (event.role !== 'publisher') return;
      if (event.name === 'Participant Unpublished') lastGone.set(event.stageId, event.time);
      if (PAGE_EVENTS.has(event.name)) {
        const id = delivered[index]!.id;
        state.addEvent({ id, time: event.time, aircraft: event.stageId, name: event.name });
      }
    });
    const now = this.options.now ?? Date.now;
    this.publishing = Object.values(answer.aircraft).some((each) => each.publishers.length > 0);
    for (const [id, memory] of this.aircraft) {
      const current = answer.aircraft[id];
      if (current === undefined) continue;
      const first = current.publishers[0];
      // A sleeping synthetic camera comes back at the next viewer: its aircraft stays on air.
      if (first !== undefined || current.cameraAsleep) {
        this.disarm(id);
        const next = memory.onAir
          ? { ...memory, goneAt: null }
          : { onAir: true, since: first?.since ?? null, goneAt: null };
        this.aircraft.set(id, next);
        state.update(id, {
          onAir: true,
          since: next.since,
          bitrate: current.bitrate,
          viewers: current.viewers,
        });
      } else {
        state.update(id, { bitrate: null, viewers: current.viewers });
        if (memory.onAir) {
          const goneAt = memory.goneAt ?? lastGone.get(id) ?? new Date(now()).toISOString();
          this.aircraft.set(id, { ...memory, goneAt });
          this.arm(id, Date.parse(goneAt) + this.options.graceMs - now());
        }
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const id of [...this.timers.keys()]) this.disarm(id);
  }

  private arm(id: string, inMs: number): void {
    if (this.timers.has(id) || this.closed) return;
    const timer = setTimeout(
      () => {
        this.offAir(id).catch((error: unknown) => {
          this.options.log.warn({ err: error, aircraft: id }, 'could not queue the off-air event');
        });
      },
      Math.max(0, inMs),
    );
    timer.unref();
    this.timers.set(id, timer);
  }

  private disarm(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }

  private async offAir(id: string): Promise<void> {
    this.timers.delete(id);
    const memory = this.aircraft.get(id);
    if (this.closed || memory === undefined || !memory.onAir || memory.goneAt === null) return;
    const since = memory.goneAt;
    const now = new Date((this.options.now ?? Date.now)()).toISOString();
    const event = offAirEvent({
      aircraft: id,
      since,
      time: now,
      graceSeconds: this.options.graceMs / 1000,
    });
    this.aircraft.set(id, { onAir: false, since, goneAt: null });
    this.options.state.update(id, { onAir: false, since, bitrate: null });
    this.options.state.addEvent({
      id: event.id,
      time: now,
      aircraft: id,
      name: OFF_AIR_EVENT_NAME,
    });
    this.options.log.info({ aircraft: id, since }, 'aircraft off air');
    await this.options.publish([event]);
    await this.options.persist();
  }
}
