/**
 * The stage's one admission rule (admission.ts), on a fake clock: viewer seats shared by the
 * socket and WHEP, connecting publishers bounded per token and per aircraft, the connect window
 * of an unconnected session, and the PATCH count.
 */
import { describe, expect, it } from 'vitest';
import {
  AdmissionControl,
  AdmissionRefused,
  DEFAULT_LIMITS,
  type AdmissionLimits,
  type SeatRequest,
} from './admission';

/** An admission on a clock the test moves by hand. */
function onFakeClock(limits: Partial<AdmissionLimits> = {}) {
  const clock = { now: 0 };
  const admission = new AdmissionControl(limits, () => clock.now);
  return { admission, clock };
}

function request(overrides: Partial<SeatRequest> & Pick<SeatRequest, 'kind'>): SeatRequest {
  return {
    stageId: 'N743AS',
    userId: 'user-1',
    tokenId: crypto.randomUUID(),
    ...overrides,
  };
}

/** The refusal's reason, or 'admitted'. */
function outcome(admit: () => unknown): string {
  try {
    admit();
    return 'admitted';
  } catch (error) {
    if (error instanceof AdmissionRefused) return error.reason;
    throw error;
  }
}

describe('viewer seats', () => {
  it('are shared by socket viewers and WHEP players: either fills the stage for the other', () => {
    const { admission } = onFakeClock({ maxSessions: 4, sessionsPerUser: 2 });
    for (const userId of ['a', 'b']) {
      admission.admit(request({ kind: 'whep', userId }));
      admission.admit(request({ kind: 'whep', userId }));
    }
    expect(outcome(() => admission.admit(request({ kind: 'socket', userId: 'c' })))).toBe(
      'stage-full',
    );
    expect(outcome(() => admission.admit(request({ kind: 'whep', userId: 'c' })))).toBe(
      'stage-full',
    );
  });

  it('refuses an account beyond its own limit first, whichever door its sessions came by', () => {
    const { admission } = onFakeClock({ maxSessions: 2, sessionsPerUser: 2 });
    admission.admit(request({ kind: 'socket', userId: 'a' }));
    admission.admit(request({ kind: 'whep', userId: 'a' }));
    expect(outcome(() => admission.admit(request({ kind: 'socket', userId: 'a' })))).toBe(
      'account-full',
    );
    expect(outcome(() => admission.admit(request({ kind: 'whep', userId: 'b' })))).toBe(
      'stage-full',
    );
  });

  it('does not count the socket a rejoin with the same token replaces', () => {
    const { admission } = onFakeClock({ maxSessions: 1, sessionsPerUser: 1 });
    admission.admit(request({ kind: 'socket', tokenId: 'token-1' }));
    expect(outcome(() => admission.admit(request({ kind: 'socket', tokenId: 'token-1' })))).toBe(
      'admitted',
    );
    // A WHEP session is never replaced: the same token's offer waits for a seat.
    expect(outcome(() => admission.admit(request({ kind: 'whep', tokenId: 'token-1' })))).toBe(
      'account-full',
    );
  });

  it('come back when released, once only', () => {
    const { admission } = onFakeClock({ maxSessions: 1 });
    const seat = admission.admit(request({ kind: 'whep' }));
    seat.release();
    seat.release();
    expect(admission.heldSeats).toBe(0);
    admission.admit(request({ kind: 'socket', userId: 'b' }));
    expect(outcome(() => admission.admit(request({ kind: 'socket', userId: 'c' })))).toBe(
      'stage-full',
    );
  });
});

describe('the connect window', () => {
  it('is 10 s by default', () => {
    expect(DEFAULT_LIMITS.connectTimeoutMs).toBe(10_000);
  });

  it('frees an unconnected session’s seat when it ends, and never a connected one’s', () => {
    const { admission, clock } = onFakeClock({ maxSessions: 2, connectTimeoutMs: 10_000 });
    admission.admit(request({ kind: 'whep', userId: 'a' }));
    admission.admit(request({ kind: 'whep', userId: 'b' })).markConnected();
    clock.now = 9_999;
    expect(outcome(() => admission.admit(request({ kind: 'socket', userId: 'c' })))).toBe(
      'stage-full',
    );
    clock.now = 10_000;
    expect(admission.heldSeats).toBe(1);
    expect(outcome(() => admission.admit(request({ kind: 'socket', userId: 'c' })))).toBe(
      'admitted',
    );
    clock.now = 3_600_000;
    expect(admission.heldSeats).toBe(2);
  });

  it('keeps the seat of a session that connected within it', () => {
    const { admission, clock } = onFakeClock({ maxSessions: 1 });
    const seat = admission.admit(request({ kind: 'whep' }));
    clock.now = 5_000;
    seat.markConnected();
    clock.now = 60_000;
    expect(outcome(() => admission.admit(request({ kind: 'socket', userId: 'b' })))).toBe(
      'stage-full',
    );
  });
});

describe('connecting publishers', () => {
  const connecting = (overrides: Partial<SeatRequest> = {}) =>
    request({ kind: 'whip', ...overrides });

  it('are 2 per token and 4 per aircraft by default', () => {
    expect(DEFAULT_LIMITS).toMatchObject({ connectingPerToken: 2, connectingPerAircraft: 4 });
  });

  it('one token holds 2: its third waits, while another token on another aircraft gets in', () => {
    const { admission } = onFakeClock();
    const greedy = connecting({ tokenId: 'greedy' });
    admission.admit(greedy);
    admission.admit(greedy);
    expect(outcome(() => admission.admit(greedy))).toBe('token-connecting');
    expect(outcome(() => admission.admit(connecting({ stageId: 'N953AS' })))).toBe('admitted');
  });

  it('one aircraft holds 4: its fifth waits, while another aircraft gets in', () => {
    const { admission } = onFakeClock();
    for (let index = 0; index < 4; index += 1) admission.admit(connecting());
    expect(outcome(() => admission.admit(connecting()))).toBe('aircraft-connecting');
    expect(outcome(() => admission.admit(connecting({ stageId: 'N954AS' })))).toBe('admitted');
  });

  it('are bounded on all aircraft together, configurably', () => {
    const { admission } = onFakeClock({ maxConnectingPublishers: 3, connectingPerAircraft: 10 });
    for (let index = 0; index < 3; index += 1) admission.admit(connecting());
    expect(outcome(() => admission.admit(connecting({ stageId: 'N954AS' })))).toBe(
      'publishers-connecting',
    );
  });

  it('hold no slot once connected, nor once their window has passed; and take no viewer seat', () => {
    const { admission, clock } = onFakeClock({ maxSessions: 1, connectTimeoutMs: 10_000 });
    const first = admission.admit(connecting({ tokenId: 'encoder' }));
    admission.admit(connecting({ tokenId: 'encoder' }));
    expect(outcome(() => admission.admit(connecting({ tokenId: 'encoder' })))).toBe(
      'token-connecting',
    );
    first.markConnected();
    expect(outcome(() => admission.admit(connecting({ tokenId: 'encoder' })))).toBe('admitted');
    expect(outcome(() => admission.admit(connecting({ tokenId: 'encoder' })))).toBe(
      'token-connecting',
    );
    clock.now = 10_000;
    expect(outcome(() => admission.admit(connecting({ tokenId: 'encoder' })))).toBe('admitted');
    expect(outcome(() => admission.admit(request({ kind: 'socket' })))).toBe('admitted');
  });
});

describe('trickle PATCHes', () => {
  it('are taken up to the session’s share, 200 by default, then refused', () => {
    const { admission } = onFakeClock();
    const seat = admission.admit(request({ kind: 'whep' }));
    const taken = Array.from({ length: 201 }, () => seat.takePatch());
    expect(taken.filter(Boolean)).toHaveLength(200);
    expect(taken.at(-1)).toBe(false);
  });

  it('are counted per session, configurably', () => {
    const { admission } = onFakeClock({ patchesPerSession: 1 });
    const first = admission.admit(request({ kind: 'whip' }));
    const second = admission.admit(request({ kind: 'whip' }));
    expect([first.takePatch(), first.takePatch(), second.takePatch()]).toEqual([true, false, true]);
  });
});
