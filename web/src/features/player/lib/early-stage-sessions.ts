/**
 * Stage sessions started by the click that opens a player, before the player has rendered: the
 * join (token, signalling socket, offer, ICE, DTLS) runs while React renders the route and the
 * browser paints it, instead of after (decision 0057; the player's effect ran 20–30 ms after the
 * click).
 *
 * - One session per stage; a second start for the same stage while one waits does nothing.
 * - The player takes it once (`take`), and owns it from then on (it leaves it on unmount).
 * - One nobody takes within `ttlMs` (the navigation never happened) is left, so no join stays
 *   open behind a page that does not show it.
 */
import type { StageSession } from './stage-session';

/** Longer than any render of the player route; short enough that a stray join soon ends. */
export const EARLY_SESSION_TTL_MS = 5_000;

interface EarlySession {
  session: StageSession;
  timer: ReturnType<typeof setTimeout>;
}

export class EarlyStageSessions {
  private readonly waiting = new Map<string, EarlySession>();

  constructor(
    private readonly createSession: (stageId: string) => StageSession,
    private readonly ttlMs = EARLY_SESSION_TTL_MS,
  ) {}

  /** Starts joining `stageId` for the player about to render, unless a session already waits. */
  start(stageId: string): void {
    if (this.waiting.has(stageId)) return;
    const session = this.createSession(stageId);
    const timer = setTimeout(() => {
      if (this.waiting.get(stageId)?.session !== session) return;
      this.waiting.delete(stageId);
      session.dispose();
    }, this.ttlMs);
    this.waiting.set(stageId, { session, timer });
    session.start();
  }

  /** Whether a session for `stageId` waits for its player (it has, or is getting, its token). */
  has(stageId: string): boolean {
    return this.waiting.has(stageId);
  }

  /** The session started for `stageId`, handed out once; undefined when there is none. */
  take(stageId: string): StageSession | undefined {
    const early = this.waiting.get(stageId);
    if (!early) return undefined;
    this.waiting.delete(stageId);
    clearTimeout(early.timer);
    return early.session;
  }

  /** Leaves every session nobody took. */
  clear(): void {
    for (const { session, timer } of this.waiting.values()) {
      clearTimeout(timer);
      session.dispose();
    }
    this.waiting.clear();
  }
}
