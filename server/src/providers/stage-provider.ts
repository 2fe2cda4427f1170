/** Where participant tokens come from: the offline local stage or Amazon IVS. One interface. */
import type { StreamId } from '@tailcam/protocol/streams';

export interface ParticipantTokenRequest {
  stageId: StreamId;
  userId: string;
  username: string;
  clientId: string;
}

export interface StageProvider {
  readonly name: 'local' | 'ivs';
  createParticipantToken(request: ParticipantTokenRequest): Promise<string>;
  /**
   * Disconnects the user's participants from every stage (their sign-in was ended); resolves
   * with how many. Participant tokens already issued stay valid until they expire.
   */
  endUserSessions(userId: string): Promise<number>;
}

/**
 * The accounts' `endSessions` (accounts.ts) over a provider: a failure is reported, never
 * thrown, since the account change it follows has already been made.
 */
export function sessionEnder(
  endUserSessions: (userId: string) => Promise<number>,
  report: {
    ended(userId: string, count: number): void;
    failed(userId: string, error: unknown): void;
  },
): (userId: string) => Promise<void> {
  return async (userId) => {
    try {
      report.ended(userId, await endUserSessions(userId));
    } catch (error) {
      report.failed(userId, error);
    }
  };
}

/** A provider failure: `publicMessage` is safe to show to the viewer; `cause` goes to the log. */
export class StageProviderError extends Error {
  constructor(
    readonly publicMessage: string,
    options?: { cause?: unknown },
  ) {
    super(publicMessage, options);
    this.name = 'StageProviderError';
  }
}
