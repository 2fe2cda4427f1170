import { describe, expect, it } from 'vitest';
import { OPERATIONS_EVENTS_KEPT, OperationsStateStore } from './operations-state';

function event(n: number) {
  return {
    id: `e${n}`,
    time: new Date(Date.UTC(2026, 10, 29, 12, 0, n)).toISOString(),
    aircraft: 'N743AS',
    name: 'Participant Published',
  };
}

describe('operations state', () => {
  it('lists every aircraft off air with no viewers until the stage says otherwise', () => {
    const state = new OperationsStateStore(['N743AS', 'N953AS']);
    expect(state.snapshot().aircraft).toEqual([
      { aircraft: 'N743AS', onAir: false, since: null, bitrate: null, viewers: 0 },
      { aircraft: 'N953AS', onAir: false, since: null, bitrate: null, viewers: 0 },
    ]);
  });

  it('wakes a waiting long poll when an aircraft changes, and not when nothing changed', async () => {
    const state = new OperationsStateStore(['N743AS']);
    const { version } = state.snapshot();
    let woken = false;
    const waiting = state.changed(version, new AbortController().signal).then(() => (woken = true));
    state.update('N743AS', { viewers: 0 });
    await Promise.resolve();
    expect(woken).toBe(false);
    state.update('N743AS', { onAir: true, since: '2026-11-29T12:00:00.000Z' });
    await waiting;
    expect(state.snapshot()).toMatchObject({
      version: version + 1,
      aircraft: [{ onAir: true, since: '2026-11-29T12:00:00.000Z' }],
    });
  });

  it('answers a poll behind the version at once, and one aborted', async () => {
    const state = new OperationsStateStore(['N743AS']);
    await state.changed(0, new AbortController().signal);
    const controller = new AbortController();
    const waiting = state.changed(state.snapshot().version, controller.signal);
    controller.abort();
    await waiting;
  });

  it('keeps the newest 20 events, newest first, each id once', () => {
    const state = new OperationsStateStore(['N743AS']);
    for (let n = 0; n < 30; n++) state.addEvent(event(n));
    state.addEvent(event(29));
    const events = state.snapshot().events;
    expect(events).toHaveLength(OPERATIONS_EVENTS_KEPT);
    expect(events[0]?.id).toBe('e29');
    expect(events.at(-1)?.id).toBe('e10');
  });
});
