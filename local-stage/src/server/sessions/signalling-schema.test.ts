/** The stage's reading of a join's `offers` (decision 0076): what it takes, what it refuses. */
import { describe, expect, it } from 'vitest';
import { parseClientMessage } from './signalling-schema';

const join = (extra: Record<string, unknown>) =>
  parseClientMessage(JSON.stringify({ type: 'join', token: 'a.b.c', ...extra }));

describe("a join's offers", () => {
  it('reads the media a join asks to be offered, and a join without them as before', () => {
    expect(join({ offers: { audio: false, video: true } })).toEqual({
      type: 'join',
      token: 'a.b.c',
      offers: { audio: false, video: true },
    });
    expect(join({})).toEqual({ type: 'join', token: 'a.b.c' });
  });

  it('refuses offers that are not two booleans (the socket then ends as a protocol error)', () => {
    expect(join({ offers: true })).toBeNull();
    expect(join({ offers: { video: true } })).toBeNull();
    expect(join({ offers: { audio: 'no', video: true } })).toBeNull();
  });
});
