/**
 * Account administration (the users CLI, directly or through the running server's admin socket):
 * the rules for names and passwords live here, once.
 */
import { hashPassword } from '../auth/passwords';
import {
  DuplicateUsernameError,
  type User,
  type UserStore,
  type UserTokenGeneration,
} from '../db/user-store';
import { canonicalUsername } from './username';

export const MAX_PASSWORD_LENGTH = 1024;

export type AccountErrorCode =
  'duplicate_username' | 'invalid_username' | 'invalid_password' | 'unknown_user';

export class AccountError extends Error {
  constructor(
    readonly code: AccountErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}

export interface UserSummary {
  username: string;
  createdAt: string;
  disabled: boolean;
}

function checkUsername(username: string): void {
  if (canonicalUsername(username) === undefined) {
    throw new AccountError(
      'invalid_username',
      `"${username}" is not a valid username: use 1 to 64 letters, digits, or . _ @ - (starting with a letter or digit)`,
    );
  }
}

function checkPassword(password: string): void {
  if (password.length === 0) throw new AccountError('invalid_password', 'Password is empty');
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new AccountError(
      'invalid_password',
      `Password is longer than ${MAX_PASSWORD_LENGTH} characters`,
    );
  }
  if (password.includes('\u0000')) {
    throw new AccountError('invalid_password', 'Password contains a NUL character');
  }
}

function unknownUser(username: string): AccountError {
  return new AccountError('unknown_user', `No user named "${username}"`);
}

export function summarize(user: User): UserSummary {
  return {
    username: user.username,
    createdAt: user.createdAt.toISOString(),
    disabled: user.disabledAt !== null,
  };
}

export interface Accounts {
  add(username: string, password: string): Promise<UserSummary>;
  list(): Promise<UserSummary[]>;
  passwd(username: string, password: string): Promise<void>;
  disable(username: string): Promise<void>;
  remove(username: string): Promise<void>;
}

export interface AccountsOptions {
  /**
   * After `passwd`, `disable` or `remove` (their login tokens already end with the store's
   * write): the stage refuses the user's participant tokens of older generations, and ends the
   * user's sessions. Reports its own failures; never throws.
   */
  endSessions?: (change: UserTokenGeneration) => Promise<void>;
  /** After `add`: the stage learns the new account's generation. Never throws. */
  accountAdded?: (account: UserTokenGeneration) => Promise<void>;
}

export function createAccounts(store: UserStore, options: AccountsOptions = {}): Accounts {
  /** A write that ends the user's login tokens; then their stage sessions end too. */
  async function endAccess(
    username: string,
    write: Promise<UserTokenGeneration | undefined>,
  ): Promise<void> {
    const change = await write;
    if (change === undefined) throw unknownUser(username);
    await options.endSessions?.(change);
  }

  return {
    async add(username, password) {
      checkUsername(username);
      checkPassword(password);
      let user: User;
      try {
        user = await store.createUser(username, await hashPassword(password));
      } catch (error) {
        if (error instanceof DuplicateUsernameError) {
          throw new AccountError('duplicate_username', `A user named "${username}" already exists`);
        }
        throw error;
      }
      await options.accountAdded?.({ userId: user.id, tokenGeneration: user.tokenGeneration });
      return summarize(user);
    },
    async list() {
      return (await store.listUsers()).map(summarize);
    },
    async passwd(username, password) {
      checkPassword(password);
      await endAccess(username, store.setPasswordHash(username, await hashPassword(password)));
    },
    disable: (username) => endAccess(username, store.disableUser(username)),
    remove: (username) => endAccess(username, store.removeUser(username)),
  };
}
