/**
 * Who may open a session on the stage: one rule for every door (the signalling socket, WHEP and
 * WHIP), so that no door counts seats its own way. A session asks for a seat once its token has
 * been checked, and gets one or an `AdmissionRefused` saying why; it gives the seat back when it
 * ends. The rule:
 * - viewers (a joined socket, a WHEP player) share `maxSessions` seats, at most
 *   `sessionsPerUser` of them for one account (the token's `user_id`). A socket join with a token
 *   whose socket session is joined replaces that session (the newer join wins), so that seat is
 *   not counted;
 * - publishers (WHIP) that are still connecting are bounded all together, per token and per
 *   aircraft, so that one token or one aircraft cannot keep every other encoder out; a connected
 *   publisher holds no slot (the stage shows one encoder per aircraft, the newest);
 * - a session that has not connected (offer answered, ICE and DTLS not done) holds its seat or
 *   slot for `connectTimeoutMs` at most: after that it counts for nothing, and its owner ends it;
 * - a WHIP or WHEP session takes at most `patchesPerSession` trickle PATCHes.
 * Refusals are checked and seats taken in one synchronous call, so concurrent requests cannot
 * both take the last seat.
 */
import { CONNECT_TIMEOUT_MS } from '../media/sdp/sdp-session';

export type SessionKind = 'socket' | 'whep' | 'whip';

export interface AdmissionLimits {
  /** Viewer seats (socket and WHEP), all accounts together (`STAGE_MAX_SESSIONS`). */
  maxSessions: number;
  /** Viewer seats one account holds at once (`STAGE_SESSIONS_PER_USER`). */
  sessionsPerUser: number;
  /** WHIP sessions connecting at once, on all aircraft together. */
  maxConnectingPublishers: number;
  /** WHIP sessions one PUBLISH token has connecting at once (`STAGE_CONNECTING_PER_TOKEN`). */
  connectingPerToken: number;
  /** WHIP sessions connecting to one aircraft at once (`STAGE_CONNECTING_PER_AIRCRAFT`). */
  connectingPerAircraft: number;
  /** Trickle ICE PATCHes one WHIP or WHEP session may send (`STAGE_PATCHES_PER_SESSION`). */
  patchesPerSession: number;
  /** How long a session that has not connected holds its seat; then its owner ends it. */
  connectTimeoutMs: number;
}

export const DEFAULT_LIMITS: Readonly<AdmissionLimits> = Object.freeze({
  // A guard, not the stage's capacity (docs/benchmarks.md: 100 viewers in a quarter of a core).
  maxSessions: 64,
  // Enough for one person watching every stream, with room for the reconnects of a few.
  sessionsPerUser: 8,
  maxConnectingPublishers: 32,
  // An encoder retrying once while its first attempt is still connecting.
  connectingPerToken: 2,
  connectingPerAircraft: 4,
  // A browser trickles a few candidates per interface, then end-of-candidates: tens at most.
  patchesPerSession: 200,
  connectTimeoutMs: CONNECT_TIMEOUT_MS,
});

/** What an HTTP door answers (503) when the stage holds all it may. */
export const STAGE_FULL = 'The stage is at capacity; try again later';

/** The join error a viewer sees after `[JOIN_ERROR] ` when their account holds too many sessions. */
export const TOO_MANY_SESSIONS =
  'Too many streams are open with this account; close one and try again';

export type RefusalReason =
  | 'stage-full'
  | 'account-full'
  | 'publishers-connecting'
  | 'token-connecting'
  | 'aircraft-connecting';

/** A session may not open now; `message` is what an HTTP door answers. */
export class AdmissionRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'AdmissionRefused';
  }
}

export interface SeatRequest {
  kind: SessionKind;
  /** The aircraft. */
  stageId: string;
  /** The token's `user_id`. */
  userId: string;
  /** The token's `jti`. */
  tokenId: string;
}

/** A session's place at the stage, from its admission until it ends. */
export class Seat {
  private patches = 0;
  private released = false;
  /** A joined socket is connected; a WHIP or WHEP session once its ICE and DTLS are done. */
  private connected: boolean;

  constructor(
    readonly request: Readonly<SeatRequest>,
    private readonly admittedAt: number,
    readonly limits: AdmissionLimits,
    private readonly onRelease: (seat: Seat) => void,
  ) {
    this.connected = request.kind === 'socket';
  }

  /** Counted against the limits: released seats and unconnected ones past their window are not. */
  holdsAt(now: number): boolean {
    if (this.released) return false;
    return this.connected || !this.unconnectedPastWindow(now);
  }

  /** A publisher's connecting slot: held until it connects, or its window ends. */
  isConnectingAt(now: number): boolean {
    return !this.released && !this.connected && !this.unconnectedPastWindow(now);
  }

  /** The session connected (ICE and DTLS done): it keeps its seat, and holds no connecting slot. */
  markConnected(): void {
    this.connected = true;
  }

  /** Counts a trickle PATCH; false beyond the session's share (the PATCH is then refused). */
  takePatch(): boolean {
    if (this.patches >= this.limits.patchesPerSession) return false;
    this.patches += 1;
    return true;
  }

  /** The session ended; idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease(this);
  }

  private unconnectedPastWindow(now: number): boolean {
    return now - this.admittedAt >= this.limits.connectTimeoutMs;
  }
}

export class AdmissionControl {
  readonly limits: AdmissionLimits;
  private readonly seats = new Set<Seat>();
  private readonly now: () => number;

  constructor(limits: Partial<AdmissionLimits> = {}, now: () => number = () => performance.now()) {
    this.limits = { ...DEFAULT_LIMITS, ...withoutUndefined(limits) };
    this.now = now;
  }

  /** A seat for `request`, taken now; throws AdmissionRefused when the rule says no. */
  admit(request: SeatRequest): Seat {
    if (request.kind === 'whip') this.checkPublisher(request);
    else this.checkViewer(request);
    const seat = new Seat(request, this.now(), this.limits, (released) =>
      this.seats.delete(released),
    );
    this.seats.add(seat);
    return seat;
  }

  /** Seats of every kind that count against a limit now. */
  get heldSeats(): number {
    const now = this.now();
    return [...this.seats].filter((seat) => seat.holdsAt(now)).length;
  }

  private checkViewer(request: SeatRequest): void {
    const now = this.now();
    const counted = [...this.seats].filter(
      (seat) =>
        seat.request.kind !== 'whip' &&
        seat.holdsAt(now) &&
        !(
          request.kind === 'socket' &&
          seat.request.kind === 'socket' &&
          seat.request.tokenId === request.tokenId
        ),
    );
    const own = counted.filter((seat) => seat.request.userId === request.userId).length;
    // The account's own limit first: the stage may have room when this account has none.
    if (own >= this.limits.sessionsPerUser) {
      throw new AdmissionRefused('account-full', TOO_MANY_SESSIONS);
    }
    if (counted.length >= this.limits.maxSessions) {
      throw new AdmissionRefused('stage-full', STAGE_FULL);
    }
  }

  private checkPublisher(request: SeatRequest): void {
    const now = this.now();
    const connecting = [...this.seats].filter(
      (seat) => seat.request.kind === 'whip' && seat.isConnectingAt(now),
    );
    const ofToken = connecting.filter((seat) => seat.request.tokenId === request.tokenId).length;
    if (ofToken >= this.limits.connectingPerToken) {
      throw new AdmissionRefused(
        'token-connecting',
        `This token already has ${ofToken} sessions connecting; wait for one to connect, or end it`,
      );
    }
    const ofAircraft = connecting.filter((seat) => seat.request.stageId === request.stageId).length;
    if (ofAircraft >= this.limits.connectingPerAircraft) {
      throw new AdmissionRefused(
        'aircraft-connecting',
        `${request.stageId} already has ${ofAircraft} publishers connecting; try again in a few seconds`,
      );
    }
    if (connecting.length >= this.limits.maxConnectingPublishers) {
      throw new AdmissionRefused(
        'publishers-connecting',
        'Too many publishers are connecting; try again in a few seconds',
      );
    }
  }
}

function withoutUndefined(limits: Partial<AdmissionLimits>): Partial<AdmissionLimits> {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}
