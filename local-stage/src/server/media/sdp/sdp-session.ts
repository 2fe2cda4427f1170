/**
 * What a WHIP or WHEP session is to its HTTP endpoint (http/sdp-endpoint.ts): the publisher's
 * side (publisher/publisher.ts) and the player's (sessions/whep-session.ts) both are one, and the
 * stage (stage/local-stage.ts) is both endpoints.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** ICE and DTLS done within this, or a session is ended and its seat counts for nothing. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** A session's seat at the stage's admission (sessions/admission.ts), as its endpoint counts it. */
export interface SessionSeat {
  /** Counts a trickle PATCH; false beyond the session's share (the PATCH is then refused). */
  takePatch(): boolean;
  readonly limits: { readonly patchesPerSession: number };
}

/** A session of either endpoint, as its PATCH and DELETE need it. */
export interface SdpSession {
  readonly id: string;
  /** Whether `token` is the one the session was created with. */
  holdsToken(token: string): boolean;
  /** Its seat at the stage's admission (admission.ts), which counts its PATCHes. */
  readonly seat: SessionSeat;
  /** The offer's ICE username fragment (a PATCH with another asks for an ICE restart). */
  readonly iceUfrag: string | undefined;
  /** Ends the session (DELETE). */
  end(): void;
}

/** What a WHIP or WHEP endpoint does; the HTTP around it is the same. */
export interface SdpEndpoint {
  /** `whip` or `whep`: the path segment, and the name in error messages. */
  readonly name: 'whip' | 'whep';
  hasStage(stageId: string): boolean;
  /**
   * Checks the token and the offer; the new session, its answer and the token's `user_id`.
   * Throws EndpointError.
   */
  create(
    stageId: string,
    token: string,
    offer: string,
  ): Promise<{ id: string; answer: string; userId: string }>;
  session(stageId: string, id: string): SdpSession | undefined;
  /** The `user_id` of a token `create` would take for the stage, or undefined. */
  tokenHolder(stageId: string, token: string): Promise<string | undefined>;
}

/** A session's Bearer token, kept as a digest: later requests must present the same token. */
export class HeldToken {
  private readonly digest: Buffer;

  constructor(token: string) {
    this.digest = digestOf(token);
  }

  /** Whether `token` is the one held (compared in constant time). */
  matches(token: string): boolean {
    return timingSafeEqual(digestOf(token), this.digest);
  }
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
