/**
 * Keeps the local stage's table of the accounts' token generations (decision 0058). Each API
 * instance asks the stage whether it has a table, a loopback long poll: a stage that has one
 * holds the answer up to HOLD_SECONDS (a restarted one answers at once, and a stage that goes
 * cuts the poll), so an idle API and stage wake about once a minute, not twice a second. It
 * sends the whole table, read from the store, when the stage has none (the stage started or
 * restarted, which it tells by the run id each answer carries, even when another caller loaded
 * it first: decision 0082), when a change could not be sent, and every RESEND_MS whatever
 * happened. Each change itself is sent as it is made (local-provider.ts). The stage merges every table and change by the larger
 * generation, so any number of instances, in any order, leave it the same.
 */
import { TOKEN_GENERATIONS_PATH, tokenGenerationsAnswer } from '@tailcam/protocol/stage-control';
import { callStageControl, CONTROL_TIMEOUT_MS, type StageControl } from './local-provider';

/**
 * The least time between two questions: a stage that does not answer (down, or starting) is
 * asked again this often, so a restarted stage waits at most this for its table.
 */
export const POLL_MS = 500;
/** How long a stage that has the table may hold its answer (the long poll). */
export const HOLD_SECONDS = 50;
/** The whole table is sent at least this often: a change whose call failed is healed by then. */
export const RESEND_MS = 60_000;

export interface TokenGenerationSyncOptions {
  /** LOCAL_STAGE_URL, and the secret the control routes' token is signed with. */
  stage: StageControl;
  /** Every account's token generation, by user id. */
  readTable: () => Promise<Record<string, number>>;
  log: {
    info(details: object, message: string): void;
    warn(details: object, message: string): void;
  };
  pollMs?: number;
  holdSeconds?: number;
  resendMs?: number;
  now?: () => number;
}

export class TokenGenerationSync {
  private readonly options: TokenGenerationSyncOptions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly stopping = new AbortController();
  /** When the whole table was last taken by the stage (undefined: not since this API started). */
  private sentAt: number | undefined;
  /** The stage run that took it: another run is a restarted stage, which gets it at once. */
  private sentToRun: string | undefined;
  private resendNow = false;
  /** Whether the last attempt failed (a failure is logged once, until one succeeds). */
  private failing = false;
  /** Lets go of the question the stage holds now, if any. */
  private holding: AbortController | undefined;

  constructor(options: TokenGenerationSyncOptions) {
    this.options = options;
  }

  start(): void {
    if (this.timer !== undefined || this.stopping.signal.aborted) return;
    this.schedule(0);
  }

  /** A change could not be sent: the whole table goes now (a held question is let go). */
  resendSoon(): void {
    this.resendNow = true;
    this.holding?.abort();
  }

  async close(): Promise<void> {
    this.stopping.abort();
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopping.signal.aborted) return;
    this.timer = setTimeout(() => {
      const startedAt = performance.now();
      this.running = this.poll().finally(() => {
        this.running = undefined;
        // A held answer is followed by the next question at once; a quick one (no table, a
        // change to send, a stage down) after POLL_MS from the last.
        const pollMs = this.options.pollMs ?? POLL_MS;
        this.schedule(this.resendNow ? 0 : Math.max(0, pollMs - (performance.now() - startedAt)));
      });
    }, delayMs);
    this.timer.unref();
  }

  /** One round: ask the stage, and send the whole table if it is due. Never throws. */
  private async poll(): Promise<void> {
    const { stage, log } = this.options;
    const now = this.options.now ?? Date.now;
    const signal = this.stopping.signal;
    let stageAnswered = false;
    let requested = false;
    try {
      const holdSeconds = this.options.holdSeconds ?? HOLD_SECONDS;
      // Nothing to wait for when the table is due anyway. The run it went to is named, so that a
      // restarted stage answers at once rather than hold a table someone else gave it.
      const hold =
        this.resendNow || this.sentAt === undefined || this.sentToRun === undefined
          ? ''
          : `?wait=${String(holdSeconds)}&run=${encodeURIComponent(this.sentToRun)}`;
      const holding = new AbortController();
      this.holding = holding;
      let asked: unknown;
      try {
        asked = await callStageControl(stage, {
          method: 'GET',
          path: `${TOKEN_GENERATIONS_PATH}${hold}`,
          signal: AbortSignal.any([signal, holding.signal]),
          timeoutMs: holdSeconds * 1000 + CONTROL_TIMEOUT_MS,
        });
      } catch (error) {
        // Let go for a change to send: the next round, at once, sends the table.
        if (holding.signal.aborted && !signal.aborted) return;
        throw error;
      } finally {
        this.holding = undefined;
      }
      const state = tokenGenerationsAnswer.parse(asked);
      stageAnswered = true;
      const due =
        !state.loaded ||
        // A restarted stage may have been loaded by someone else (an empty table would refuse
        // every account until the next resend): ours goes at once.
        state.stageRun !== this.sentToRun ||
        this.resendNow ||
        this.sentAt === undefined ||
        now() - this.sentAt >= (this.options.resendMs ?? RESEND_MS);
      if (!due) return;
      // Taken before the table is read: a change made meanwhile asks for the next round.
      requested = this.resendNow;
      this.resendNow = false;
      const generations = await this.options.readTable();
      const answer = tokenGenerationsAnswer.parse(
        await callStageControl(stage, {
          method: 'PUT',
          path: TOKEN_GENERATIONS_PATH,
          body: { generations },
          signal,
        }),
      );
      this.sentAt = now();
      this.sentToRun = answer.stageRun;
      if (!state.loaded || this.failing) {
        log.info(
          { accounts: Object.keys(generations).length, stageAccounts: answer.users },
          "sent the accounts' token generations to the local stage",
        );
      }
      this.failing = false;
    } catch (error) {
      if (signal.aborted) return;
      this.resendNow = this.resendNow || requested;
      // A stage that does not answer is down or starting (it starts after the API): its health
      // and the proxy say so. One that answers but cannot be given the table is worth a line.
      if (stageAnswered && !this.failing) {
        log.warn(
          { err: error },
          "could not send the accounts' token generations to the local stage; retrying",
        );
      }
      this.failing = this.failing || stageAnswered;
    }
  }
}
