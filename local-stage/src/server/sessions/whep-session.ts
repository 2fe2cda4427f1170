/**
 * A WHEP player's session (docs/decisions/0055-whep-playback.md): a subscription to the publisher
 * its aircraft shows, negotiated over HTTP instead of the signalling socket. It ends with its
 * DELETE, when the player's connection fails or never comes up, and when that publisher leaves
 * (a player has no socket to hear of the next one: it starts a new session, as after any loss).
 */
import type { Seat } from './admission';
import { HeldToken, type SdpSession } from '../media/sdp/sdp-session';
import type { Subscription } from '../media/viewer/subscription';

export class WhepSession implements SdpSession {
  private readonly token: HeldToken;

  constructor(
    /** Its Location's last segment (its subscription's id): unguessable. */
    readonly id: string,
    readonly stageId: string,
    /** Its seat at the stage's admission (admission.ts): counted with the socket sessions. */
    readonly seat: Seat,
    token: string,
    readonly iceUfrag: string | undefined,
    readonly subscription: Subscription,
  ) {
    this.token = new HeldToken(token);
  }

  holdsToken(token: string): boolean {
    return this.token.matches(token);
  }

  end(): void {
    this.subscription.close('deleted', false);
  }
}
