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
 */

/** What the table says of an account's token: `no-table` until the API has sent the table. */
export type GenerationVerdict = 'current' | 'revoked' | 'unknown-user' | 'no-table';

export class TokenGenerations {
  private readonly byUser = new Map<string, number>();
  private hasTable: boolean;
  private readonly waiters = new Set<(loaded: boolean) => void>();

  /** `loaded`: the stage starts with a (so far empty) table, as a stage with no API does. */
  constructor(options: { loaded: boolean }) {
    this.hasTable = options.loaded;
  }

  /** Whether the whole table has come (at least once since the stage started). */
  get loaded(): boolean {
    return this.hasTable;
  }

  get users(): number {
    return this.byUser.size;
  }

  /** The whole table, every account: merged, and the stage has a table from now on. */
  load(generations: Readonly<Record<string, number>>): void {
    for (const [userId, generation] of Object.entries(generations)) {
      this.record(userId, generation);
    }
    if (this.hasTable) return;
    this.hasTable = true;
    for (const waiter of this.waiters) waiter(true);
    this.waiters.clear();
  }

  /** One account's generation: a change, or a new account. Never lowers it. */
  record(userId: string, generation: number): void {
    const known = this.byUser.get(userId);
    if (known === undefined || generation > known) this.byUser.set(userId, generation);
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
