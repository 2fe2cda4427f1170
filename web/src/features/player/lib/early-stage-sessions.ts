/**
 * Stage sessions started ahead of the player that shows them, while React renders the route and
 * the browser paints it, instead of after: by the click that opens a player (decision 0057), and
 * before it, by the viewer's intent, the pointer resting on a card or its focus (decision 0091).
 *
 * - One session per stage; a second start for the same stage while one waits does nothing.
 * - The player takes it once (`take`), and owns it from then on (it leaves it on unmount).
 * - One nobody takes within `ttlMs` (the navigation never happened) is left, so no join stays
 *   open behind a page that does not show it.
 * - A join on intent is left when the intent goes (`forgo`), or when another one replaces it;
 *   at most `INTENT_SESSIONS_MAX` at once and `INTENT_JOINS_PER_MINUTE` a minute, for each holds
 *   one of the account's seats on the stage and spends a participant token. The click that
 *   follows adopts it (`start`), unless it failed: then the click joins anew.
 * - Joins on standby (`standBy`, decision 0112): every stream a page shows, joined with its video
 *   held by the stage, from the viewer's first sign of life on it; in the same minute's budget,
 *   left after `STANDBY_SESSION_TTL_MS` or with the page, and at once when lost (its seat may
 *   have gone to the account's viewer). An intent shows it at once (and leaves it when it goes);
 *   a click makes it the player's, which shows it as it takes it, with no join to wait for.
 */
import type { StageSession } from './stage-session';

/** Longer than any render of the player route; short enough that a stray join soon ends. */
export const EARLY_SESSION_TTL_MS = 5_000;
/** Watch all's three; a stream card's intent holds one. The account holds 8 seats at most. */
export const INTENT_SESSIONS_MAX = 3;
/** A third of the participant tokens an account may ask for a minute (30): the rest are clicks'. */
export const INTENT_JOINS_PER_MINUTE = 10;
/** How long a pointer resting on a card holds its join open. */
export const INTENT_SESSION_TTL_MS = 30_000;
/** How long a join on standby waits for a click; the viewer's next sign of life joins again. */
export const STANDBY_SESSION_TTL_MS = 60_000;
const MINUTE_MS = 60_000;

interface EarlySession {
  session: StageSession;
  timer: ReturnType<typeof setTimeout>;
  /** Held by an intent only (no click yet): the intent's going leaves it. */
  byIntent: boolean;
  /** On standby (no click or intent yet): the page's going leaves it. */
  standby?: boolean;
}

export class EarlyStageSessions {
  private readonly waiting = new Map<string, EarlySession>();
  /** When each join ahead of a click (on intent, on standby) of the last minute started. */
  private intentJoins: number[] = [];

  constructor(
    private readonly createSession: (stageId: string) => StageSession,
    private readonly ttlMs = EARLY_SESSION_TTL_MS,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /**
   * Starts joining `stageId` for the player about to render, unless a session already waits; one
   * an intent started is the click's from now on (a failed one is replaced by a new join).
   */
  start(stageId: string): void {
    const early = this.waiting.get(stageId);
    if (early && !this.usable(early)) {
      this.leave(stageId);
    } else if (early) {
      if (early.byIntent || early.standby) {
        // The click's from now on. One on standby stays so until its player takes it: its first
        // frame then comes once the player's video can show it (`take`).
        early.standby = false;
        early.byIntent = false;
        clearTimeout(early.timer);
        early.timer = this.expire(stageId, early.session, this.ttlMs);
      }
      return;
    }
    this.open(stageId, false, this.ttlMs);
  }

  /**
   * The viewer is about to open these streams (the pointer rests on a card or on 'Watch all', or
   * it has focus): joins each now, and leaves what another intent had joined. Returns the streams
   * it did not join (beyond the cap or the minute's budget), whose tokens may still be fetched.
   */
  intend(stageIds: readonly string[]): string[] {
    for (const [stageId, early] of this.waiting) {
      if (early.byIntent && !stageIds.includes(stageId)) this.leave(stageId);
    }
    const notJoined: string[] = [];
    for (const [index, stageId] of stageIds.entries()) {
      const early = this.waiting.get(stageId);
      if (early?.standby && index < INTENT_SESSIONS_MAX) {
        // On standby: the intent shows it now (its picture is ready for the click), and owns it.
        early.standby = false;
        early.byIntent = true;
        early.session.show();
        clearTimeout(early.timer);
        early.timer = this.expire(stageId, early.session, INTENT_SESSION_TTL_MS);
      }
      if (early) continue;
      if (index >= INTENT_SESSIONS_MAX || !this.budget()) {
        notJoined.push(stageId);
        continue;
      }
      this.open(stageId, true, INTENT_SESSION_TTL_MS);
    }
    return notJoined;
  }

  /**
   * The viewer is on a page that shows these streams (decision 0112): each one that waits for no
   * session yet is joined on standby, within the minute's budget of joins ahead of a click.
   */
  standBy(stageIds: readonly string[]): void {
    for (const stageId of stageIds.slice(0, INTENT_SESSIONS_MAX)) {
      if (this.waiting.has(stageId) || !this.budget()) continue;
      const session = this.open(stageId, false, STANDBY_SESSION_TTL_MS, true);
      // Lost on standby (its seat given to the account's viewer, the stage gone): left, not
      // rejoined; the next sign of life joins again.
      const stop = session.subscribe(() => {
        const early = this.waiting.get(stageId);
        if (early?.session !== session || !early.standby) return stop();
        if (!this.usable(early)) this.leave(stageId);
      });
    }
  }

  /** The intent on these streams went (the pointer left, the focus moved): leaves their joins. */
  forgo(stageIds: readonly string[]): void {
    for (const stageId of stageIds) {
      if (this.waiting.get(stageId)?.byIntent) this.leave(stageId);
    }
  }

  /** Leaves every join an intent or the page holds (the page that showed the streams went). */
  forgoAll(): void {
    for (const [stageId, early] of this.waiting) {
      if (early.byIntent || early.standby) this.leave(stageId);
    }
  }

  /** Whether a session for `stageId` waits for its player (it has, or is getting, its token). */
  has(stageId: string): boolean {
    return this.waiting.has(stageId);
  }

  /**
   * The session started for `stageId`, handed out once; undefined when there is none, or when an
   * intent's join failed (the player then joins anew, and any error it shows is its own).
   */
  take(stageId: string): StageSession | undefined {
    const early = this.waiting.get(stageId);
    if (!early) return undefined;
    if (!this.usable(early)) {
      this.leave(stageId);
      return undefined;
    }
    this.waiting.delete(stageId);
    clearTimeout(early.timer);
    early.session.show();
    return early.session;
  }

  /** Leaves every session nobody took. */
  clear(): void {
    for (const stageId of [...this.waiting.keys()]) this.leave(stageId);
  }

  /**
   * Whether the player may take it: a click's always (its error is the player's to show); one
   * ahead of the click only while it has not failed, nor, on standby, lost its connection.
   */
  private usable(early: EarlySession): boolean {
    const { status } = early.session.getSnapshot();
    if (early.standby && status === 'reconnecting') return false;
    return !(early.byIntent || early.standby) || status !== 'error';
  }

  /** Counts a join ahead of a click in the minute's budget; false when it is spent. */
  private budget(): boolean {
    const now = this.now();
    this.intentJoins = this.intentJoins.filter((at) => now - at < MINUTE_MS);
    if (this.intentJoins.length >= INTENT_JOINS_PER_MINUTE) return false;
    this.intentJoins.push(now);
    return true;
  }

  private open(stageId: string, byIntent: boolean, ttlMs: number, standby = false) {
    const session = this.createSession(stageId);
    const timer = this.expire(stageId, session, ttlMs);
    this.waiting.set(stageId, { session, timer, byIntent, standby });
    if (standby) session.standBy();
    else session.start();
    return session;
  }

  private expire(stageId: string, session: StageSession, ttlMs: number) {
    return setTimeout(() => {
      if (this.waiting.get(stageId)?.session === session) this.leave(stageId);
    }, ttlMs);
  }

  private leave(stageId: string): void {
    const early = this.waiting.get(stageId);
    if (!early) return;
    this.waiting.delete(stageId);
    clearTimeout(early.timer);
    early.session.dispose();
  }
}
