import { describe, expect, it } from 'vitest';
import { StageEventsRing } from './events-ring';

const encoder = { stageId: 'N743AS', participantId: 'p-1', userId: 'encoder-1' };

describe('the stage events ring', () => {
  it('says a publisher joined and published, then unpublished and left, numbered in order', () => {
    const ring = new StageEventsRing({ run: 'run-1' });
    ring.published(encoder);
    ring.unpublished(encoder);
    expect(ring.after(0).map((event) => [event.seq, event.name, event.role])).toEqual([
      [1, 'Participant Joined', 'publisher'],
      [2, 'Participant Published', 'publisher'],
      [3, 'Participant Unpublished', 'publisher'],
      [4, 'Participant Left', 'publisher'],
    ]);
    expect(ring.after(2).map((event) => event.seq)).toEqual([3, 4]);
    expect(ring.after(4)).toEqual([]);
  });

  it("counts each aircraft's persons, and says a viewer left only once, and only after it joined", () => {
    const ring = new StageEventsRing({ run: 'run-1' });
    const first = {};
    const second = {};
    ring.viewerJoined(first, { stageId: 'N743AS', participantId: 'v-1', userId: 'u-1' });
    ring.viewerJoined(second, { stageId: 'N953AS', participantId: 'v-2', userId: 'u-2' });
    expect([ring.viewerCount('N743AS'), ring.viewerCount('N953AS')]).toEqual([1, 1]);
    ring.viewerLeft(first);
    ring.viewerLeft(first);
    ring.viewerLeft({});
    expect(ring.viewerCount('N743AS')).toBe(0);
    expect(ring.after(0).map((event) => event.name)).toEqual([
      'Participant Joined',
      'Participant Joined',
      'Participant Left',
    ]);
  });

  it('keeps only its capacity: the oldest kept tells a caller behind it how many it missed', () => {
    const ring = new StageEventsRing({ run: 'run-1', capacity: 4 });
    for (let n = 0; n < 5; n++) ring.published({ ...encoder, participantId: `p-${n}` });
    expect([ring.first, ring.last]).toEqual([7, 10]);
    expect(ring.after(2).map((event) => event.seq)).toEqual([7, 8, 9, 10]);
  });

  it('wakes a waiting long poll at each event until it stops listening', () => {
    const ring = new StageEventsRing({ run: 'run-1' });
    let woken = 0;
    const stop = ring.onEvent(() => (woken += 1));
    ring.published(encoder);
    stop();
    ring.unpublished(encoder);
    expect(woken).toBe(2);
  });
});
