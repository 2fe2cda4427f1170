/**
 * The stage's participant events for the API's feed (decision 0098): a publisher (a real encoder
 * or the synthetic camera) joining and publishing, unpublishing and leaving, and a person's
 * session (not the recorder's, not the thumbnail process's) joining and leaving, in IVS's words.
 * The last ones are kept in a bounded ring with sequence numbers, so that an API that restarts
 * asks for those after its cursor; one that was away past the ring's length learns how many it
 * missed. It also counts each aircraft's persons watching.
 */
import {
  MAX_STAGE_EVENTS_A_PAGE,
  type AircraftNow,
  type StageEvent,
  type StageEventName,
} from '@tailcam/protocol/stage-control';
import type { AircraftStage } from './aircraft-stage';

/** Events kept: at a few a minute, hours of them; a page of the feed is 200. */
export const STAGE_EVENTS_KEPT = 2_048;

type Who = Pick<StageEvent, 'stageId' | 'role' | 'participantId' | 'userId'>;

export class StageEventsRing {
  /** This run of the stage process: a restarted stage starts its numbers again. */
  readonly run: string;
  private readonly capacity: number;
  private readonly events: StageEvent[] = [];
  private lastSeq = 0;
  private readonly listeners = new Set<() => void>();
  /** The persons in each aircraft's audience now, by the key their session gave. */
  private readonly viewers = new Map<object, Who>();
  private readonly now: () => Date;

  constructor(options: { run: string; capacity?: number; now?: () => Date }) {
    this.run = options.run;
    this.capacity = options.capacity ?? STAGE_EVENTS_KEPT;
    this.now = options.now ?? (() => new Date());
  }

  /** A publisher connected: it joined the stage and published, as IVS says it. */
  published(who: Omit<Who, 'role'>): void {
    this.push('Participant Joined', { ...who, role: 'publisher' });
    this.push('Participant Published', { ...who, role: 'publisher' });
  }

  /** A connected publisher closed. */
  unpublished(who: Omit<Who, 'role'>): void {
    this.push('Participant Unpublished', { ...who, role: 'publisher' });
    this.push('Participant Left', { ...who, role: 'publisher' });
  }

  /** A person's session joined; `key` is what its `viewerLeft` will name. */
  viewerJoined(key: object, who: Omit<Who, 'role'>): void {
    if (this.viewers.has(key)) return;
    const viewer = { ...who, role: 'viewer' as const };
    this.viewers.set(key, viewer);
    this.push('Participant Joined', viewer);
  }

  /** A session ended: its Left, if its Joined was said. */
  viewerLeft(key: object): void {
    const viewer = this.viewers.get(key);
    if (viewer === undefined) return;
    this.viewers.delete(key);
    this.push('Participant Left', viewer);
  }

  /** Persons watching `stageId` now. */
  viewerCount(stageId: string): number {
    let count = 0;
    for (const viewer of this.viewers.values()) if (viewer.stageId === stageId) count += 1;
    return count;
  }

  /** The oldest kept (the next one when none is). */
  get first(): number {
    return this.events[0]?.seq ?? this.lastSeq + 1;
  }

  get last(): number {
    return this.lastSeq;
  }

  /** The events after `after` (all kept ones when it is older than the ring), a page at most. */
  after(after: number): StageEvent[] {
    const start = this.events.findIndex((event) => event.seq > after);
    if (start < 0) return [];
    return this.events.slice(start, start + MAX_STAGE_EVENTS_A_PAGE);
  }

  /** Calls `listener` at each new event until the returned function is called. */
  onEvent(listener: () => void): () => void {
    const once = () => listener();
    this.listeners.add(once);
    return () => this.listeners.delete(once);
  }

  private push(name: StageEventName, who: Who): void {
    this.lastSeq += 1;
    this.events.push({ seq: this.lastSeq, time: this.now().toISOString(), name, ...who });
    if (this.events.length > this.capacity) this.events.shift();
    for (const listener of [...this.listeners]) listener();
  }
}

/** An aircraft as the feed tells it: its connected publishers, the shown one's video bitrate, viewers. */
export function aircraftNow(
  stage: AircraftStage,
  audience: { viewers: number; camerasAsleep: boolean },
): AircraftNow {
  const now = performance.now();
  const wallNow = Date.now();
  const publishers = [...stage.publishers.values()]
    .filter((publisher) => publisher.state === 'connected' && publisher.connectedAt !== undefined)
    .sort((a, b) => (a.connectedAt ?? 0) - (b.connectedAt ?? 0))
    .map((publisher) => ({
      participantId: publisher.id,
      kind: publisher.kind,
      since: new Date(wallNow - (now - (publisher.connectedAt ?? now))).toISOString(),
    }));
  const layers = stage.shown?.publisher.layers.all ?? [];
  // Null until its video's first packet: not measured yet, rather than 0 bit/s.
  const bitrate = layers.some((layer) => layer.lastPacketAt !== undefined)
    ? Math.round(layers.reduce((sum, layer) => sum + layer.bitrate(now), 0))
    : null;
  return {
    publishers,
    bitrate,
    viewers: audience.viewers,
    cameraAsleep: audience.camerasAsleep && stage.cameraOnAir && stage.camera === undefined,
  };
}
