/**
 * The accounts' token generations, as the API tells them (decision 0058): a participant token
 * that carries a generation (`gen`: an account's token) is good only while that generation is not
 * below its user's. `users passwd`, `disable` and `remove` raise a user's generation, so every
 * token issued before is refused from then on.
 *
 * The API sends the whole table when it finds the stage without one (at start, after a restart)
 * and every minute, and each change as it is made. Generations only go up, so every entry is
 * merged by the larger: pushes from several API instances agree in any order. A user the table
 * does not name (a removed account, once the stage restarted) is refused.
 *
 * The table holds at most `maxUsers` accounts (decision 0082): merging keeps the rows of
 * accounts removed since the stage started, so a whole table that would take it past the bound
 * replaces those rows (an account a table does not name is refused either way), and a table or
 * a new account past it is refused, changing nothing.
 */
import { randomUUID } from 'node:crypto';
import { MAX_TOKEN_GENERATION_ACCOUNTS } from '@tailcam/protocol/stage-control';

/** What the table says of an account's token: `no-table` until the API has sent the table. */
export type GenerationVerdict = 'current' | 'revoked' | 'unknown-user' | 'no-table';

export class TokenGenerations {
  private readonly byUser = new Map<string, number>();
  private hasTable: boolean;
  private readonly waiters = new Set<(loaded: boolean) => void>();
  private readonly maxUsers: number;
  /**
   * This run of the stage process, in every answer: the API resends its table to a run it has
   * not sent it to, even one that says it has a table (someone else may have loaded it).
   */
  readonly run = randomUUID();

  /** `loaded`: the stage starts with a (so far empty) table, as a stage with no API does. */
  constructor(options: { loaded: boolean; maxUsers?: number }) {
    this.hasTable = options.loaded;
    this.maxUsers = options.maxUsers ?? MAX_TOKEN_GENERATION_ACCOUNTS;
  }

  /** Whether the whole table has come (at least once since the stage started). */
  get loaded(): boolean {
    return this.hasTable;
  }

  get users(): number {
    return this.byUser.size;
  }

  /**
   * The whole table, every account: merged, and the stage has a table from now on. False when it
   * names more than the bound: nothing changed.
   */
  load(generations: Readonly<Record<string, number>>): boolean {
    const entries = Object.entries(generations);
    if (entries.length > this.maxUsers) return false;
    let added = 0;
    for (const [userId] of entries) if (!this.byUser.has(userId)) added += 1;
    if (this.byUser.size + added > this.maxUsers) {
      // Only rows this table does not name go: the generations it names stay merged by the larger.
      const named = new Set(entries.map(([userId]) => userId));
      for (const userId of this.byUser.keys()) if (!named.has(userId)) this.byUser.delete(userId);
    }
    for (const [userId, generation] of entries) this.record(userId, generation);
    if (this.hasTable) return true;
    this.hasTable = true;
    for (const waiter of this.waiters) waiter(true);
    this.waiters.clear();
    return true;
  }

  /**
   * One account's generation: a change, or a new account. Never lowers it. False when it names
   * a new account and the table is full: nothing changed (the API's next whole table makes room).
   */
  record(userId: string, generation: number): boolean {
    const known = this.byUser.get(userId);
    if (known === undefined && this.byUser.size >= this.maxUsers) return false;
    if (known === undefined || generation > known) this.byUser.set(userId, generation);
    return true;
  }

  /**
   * Whether a token of `userId` issued at `generation` is still good. A newer generation than the
   * table's is good, and raises the entry: the API signed it, so the account had reached it.
   */
  verdict(userId: string, generation: number): GenerationVerdict {
    const known = this.byUser.get(userId);
    if (known !== undefined && generation < known) return 'revoked';
    if (!this.hasTable) return 'no-table';
    if (known === undefined) return 'unknown-user';
    this.record(userId, generation);
    return 'current';
  }

  /** Resolves true once the table has come, or false after `timeoutMs`. */
  whenLoaded(timeoutMs: number): Promise<boolean> {
    if (this.hasTable) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (loaded: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(loaded);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      timer.unref();
      this.waiters.add(done);
    });
  }
}
