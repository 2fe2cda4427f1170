/** Where participant tokens come from: the offline local stage or Amazon IVS. One interface. */
import type { StreamId } from '@tailcam/protocol/streams';
import type { AccountsOptions } from '../accounts/accounts';
import type { UserTokenGeneration } from '../db/user-store';

export interface ParticipantTokenRequest {
  stageId: StreamId;
  userId: string;
  username: string;
  /** The account's token generation now: the local stage refuses the token once it is raised. */
  tokenGeneration: number;
  clientId: string;
}

export interface StageProvider {
  readonly name: 'local' | 'ivs';
  createParticipantToken(request: ParticipantTokenRequest): Promise<string>;
  /**
   * The user's sign-in was ended, their account now at `tokenGeneration`: disconnects their
   * participants from every stage, and resolves with how many. The local stage also refuses
   * their participant tokens issued before; an IVS participant token issued before stays valid
   * until it expires (decision 0058).
   */
  endUserSessions(change: UserTokenGeneration): Promise<number>;
  /** A new account: the local stage learns its token generation (IVS needs nothing). */
  accountAdded(account: UserTokenGeneration): Promise<void>;
  /**
   * A signed-in viewer is about (any authenticated request): the local stage wakes its sleeping
   * cameras (decision 0074). Returns at once, never throws; IVS has nothing to wake.
   */
  viewerPresent?(): void;
}

/**
 * The accounts' hooks (accounts.ts) over a provider: a failure is reported, never thrown, since
 * the account change it follows has already been made.
 */
export function stageAccountHooks(
  stage: Pick<StageProvider, 'endUserSessions' | 'accountAdded'>,
  report: {
    ended(userId: string, count: number): void;
    failed(userId: string, error: unknown): void;
  },
): Required<AccountsOptions> {
  return {
    endSessions: async (change) => {
      try {
        report.ended(change.userId, await stage.endUserSessions(change));
      } catch (error) {
        report.failed(change.userId, error);
      }
    },
    accountAdded: async (account) => {
      try {
        await stage.accountAdded(account);
      } catch (error) {
        report.failed(account.userId, error);
      }
    },
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
