import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StageEvent, StageEventsAnswer } from '@tailcam/protocol/stage-control';
import type { DeliveredEvent } from './ivs-events';
import { OnAirWatch, type AircraftMemory } from './on-air-watch';
import { OperationsStateStore } from './operations-state';

const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

let seq = 0;
function event(name: StageEvent['name'], atMs: number, participantId = 'p-1'): StageEvent {
  seq += 1;
  return {
    seq,
    time: iso(atMs),
    stageId: 'N743AS',
    name,
    role: 'publisher',
    participantId,
    userId: 'encoder',
  };
}

function answer(
  events: StageEvent[],
  publishers: { participantId: string; since: string }[],
  viewers = 0,
  cameraAsleep = false,
): StageEventsAnswer {
  return {
    run: 'run-1',
    first: 1,
    last: events.at(-1)?.seq ?? 0,
    events,
    aircraft: {
      N743AS: {
        publishers: publishers.map((each) => ({ ...each, kind: 'encoder' as const })),
        bitrate: publishers.length > 0 ? 1_200_000 : null,
        viewers,
        cameraAsleep,
      },
    },
  };
}

function setUp(saved?: Record<string, AircraftMemory>) {
  const state = new OperationsStateStore(['N743AS']);
  const published: DeliveredEvent[] = [];
  const watch = new OnAirWatch({
    aircraft: ['N743AS'],
    state,
    graceMs: 10_000,
    publish: async (events) => void published.push(...events),
    persist: async () => undefined,
    log: { info: () => undefined, warn: () => undefined },
  });
  if (saved) watch.restore(saved);
  watches.push(watch);
  const names = () => published.map((each) => each.detail.event_name);
  return { state, watch, published, names };
}

const watches: OnAirWatch[] = [];
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
  seq = 0;
});
afterEach(() => {
  for (const watch of watches.splice(0)) watch.close();
  vi.useRealTimers();
});

describe('on air and off air', () => {
  it('shows an aircraft on air since its publisher came, with its bitrate and viewers', async () => {
    const { watch, state, names } = setUp();
    await watch.apply(
      answer(
        [event('Participant Joined', T0), event('Participant Published', T0)],
        [{ participantId: 'p-1', since: iso(T0) }],
        2,
      ),
    );
    expect(names()).toEqual(['Participant Joined', 'Participant Published']);
    expect(state.snapshot().aircraft[0]).toEqual({
      aircraft: 'N743AS',
      onAir: true,
      since: iso(T0),
      bitrate: 1_200_000,
      viewers: 2,
    });
    // The page lists the publisher's coming, not its Joined.
    expect(state.snapshot().events.map((each) => each.name)).toEqual(['Participant Published']);
  });

  it('says off air once the publisher has been gone longer than the grace, since it went', async () => {
    const { watch, state, names } = setUp();
    await watch.apply(
      answer([event('Participant Published', T0)], [{ participantId: 'p-1', since: iso(T0) }]),
    );
    vi.setSystemTime(T0 + 5_000);
    await watch.apply(answer([event('Participant Unpublished', T0 + 5_000)], []));
    await vi.advanceTimersByTimeAsync(9_900);
    expect(state.snapshot().aircraft[0]?.onAir).toBe(true);
    expect(names()).not.toContain('Off Air');
    await vi.advanceTimersByTimeAsync(200);
    expect(names().at(-1)).toBe('Off Air');
    expect(state.snapshot().aircraft[0]).toMatchObject({ onAir: false, since: iso(T0 + 5_000) });
    expect(state.snapshot().events[0]?.name).toBe('Off Air');
  });

  it('says nothing when a publisher is back within the grace, and keeps its first since', async () => {
    const { watch, state, names } = setUp();
    await watch.apply(
      answer([event('Participant Published', T0)], [{ participantId: 'p-1', since: iso(T0) }]),
    );
    await watch.apply(answer([event('Participant Unpublished', T0 + 1_000)], []));
    await vi.advanceTimersByTimeAsync(3_000);
    await watch.apply(
      answer(
        [event('Participant Published', T0 + 4_000, 'p-2')],
        [{ participantId: 'p-2', since: iso(T0 + 4_000) }],
      ),
    );
    await vi.advanceTimersByTimeAsync(60_000);
    expect(names()).not.toContain('Off Air');
    expect(state.snapshot().aircraft[0]).toMatchObject({ onAir: true, since: iso(T0) });
  });

  it('after a restart during the grace, says off air once, with the id it would have had', async () => {
    const first = setUp();
    await first.watch.apply(
      answer([event('Participant Published', T0)], [{ participantId: 'p-1', since: iso(T0) }]),
    );
    await first.watch.apply(answer([event('Participant Unpublished', T0 + 1_000)], []));
    const saved = first.watch.memory();
    first.watch.close();

    vi.setSystemTime(T0 + 4_000);
    const second = setUp(saved);
    expect(second.state.snapshot().aircraft[0]?.onAir).toBe(true);
    await second.watch.apply(answer([], []));
    await vi.advanceTimersByTimeAsync(6_999);
    expect(second.names()).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);
    expect(second.names()).toEqual(['Off Air']);

    // The first run's would-be event: the same aircraft, gone at the same moment.
    const third = setUp(saved);
    await third.watch.apply(answer([], []));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(third.published[0]?.id).toBe(second.published[0]?.id);
  });

  it('keeps an aircraft on air while its synthetic camera sleeps for want of viewers', async () => {
    const { watch, state, names } = setUp();
    await watch.apply(
      answer([event('Participant Published', T0)], [{ participantId: 'p-1', since: iso(T0) }]),
    );
    await watch.apply(answer([event('Participant Unpublished', T0 + 1_000)], [], 0, true));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(names()).not.toContain('Off Air');
    expect(state.snapshot().aircraft[0]).toMatchObject({
      onAir: true,
      since: iso(T0),
      bitrate: null,
    });
  });

  it('never says off air for an aircraft not seen on air since the first start', async () => {
    const { watch, state, names } = setUp();
    await watch.apply(answer([], []));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(names()).toEqual([]);
    expect(state.snapshot().aircraft[0]).toMatchObject({ onAir: false, since: null });
  });
});
