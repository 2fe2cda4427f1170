/**
 * The API's feed of the local stage's participant events (decision 0098): a loopback long poll
 * of `GET /_control/events` with the stage control token, from a cursor (the stage's run and the
 * last sequence number taken) saved in DATA_DIR/event-feed.json once the answer's events are
 * queued on disk. An API that restarts resumes from its cursor and loses nothing the stage still
 * keeps; one that was away past the stage's ring says how many it missed, in its log and in
 * `counts.missed`. A restarted stage numbers its events anew (its run changes): the feed starts
 * again from its first. The first question of a process is answered at once (each aircraft now);
 * the next ones are held at most 5 s while a publisher sends, so the bitrate shown stays fresh,
 * otherwise 50 s.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { STAGE_EVENTS_PATH, stageEventsAnswer } from '@tailcam/protocol/stage-control';
import {
  callStageControl,
  CONTROL_TIMEOUT_MS,
  type StageControl,
} from '../providers/local-provider';
import type { OnAirWatch } from './on-air-watch';

export const EVENT_FEED_FILE = 'event-feed.json';
const HOLD_SECONDS = { idle: 50, onAir: 5 };
/** A stage that does not answer (down, or starting) is asked again after this. */
const RETRY_MS = 1_000;
/**
 * Failing this long is worth a line: `npm start` starts the API before the stage, and a stage
 * that restarts is back within seconds (its health and the proxy say so meanwhile).
 */
const QUIET_FAILING_MS = 30_000;

const savedFeed = z.object({
  run: z.string().min(1).max(64),
  seq: z.number().int().min(0),
  aircraft: z.record(
    z.string(),
    z.object({ onAir: z.boolean(), since: z.string().nullable(), goneAt: z.string().nullable() }),
  ),
});

export interface StageEventFeedOptions {
  stage: StageControl;
  /** DATA_DIR/event-feed.json */
  file: string;
  watch: OnAirWatch;
  log: {
    info(details: object, message: string): void;
    warn(details: object, message: string): void;
  };
  holdSeconds?: { idle: number; onAir: number };
  retryMs?: number;
}

export class StageEventFeed {
  private run: string | undefined;
  private seq = 0;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private saving: Promise<void> = Promise.resolve();
  /** Whether the stage has answered this process yet. */
  private answered = false;
  /** Since when the stage has not answered (performance.now), and whether that was said. */
  private failingSince: number | undefined;
  private failingSaid = false;
  /** For the metrics: events the stage's ring no longer had, and stage restarts seen. */
  readonly counts = { missed: 0, stageRestarts: 0 };

  constructor(private readonly options: StageEventFeedOptions) {}

  /** Reads the saved cursor and the aircraft's memory, then follows the stage. */
  async start(): Promise<void> {
    const saved = await readFile(this.options.file, 'utf8').then(
      (text) => savedFeed.safeParse(JSON.parse(text)),
      () => undefined,
    );
    if (saved?.success) {
      this.run = saved.data.run;
      this.seq = saved.data.seq;
      this.options.watch.restore(saved.data.aircraft);
    } else if (saved !== undefined) {
      this.options.log.warn({ file: this.options.file }, 'unreadable event feed cursor: ignored');
    }
    this.running ??= this.follow();
  }

  async close(): Promise<void> {
    this.stopping.abort();
    await this.running;
    await this.saving;
  }

  /** Saves the cursor and the aircraft's memory (one write at a time; atomic by rename). */
  save(): Promise<void> {
    const write = async () => {
      if (this.run === undefined) return;
      const text = JSON.stringify({
        run: this.run,
        seq: this.seq,
        aircraft: this.options.watch.memory(),
      });
      await mkdir(dirname(this.options.file), { recursive: true, mode: 0o700 });
      await writeFile(`${this.options.file}.tmp`, text, { mode: 0o600 });
      await rename(`${this.options.file}.tmp`, this.options.file);
    };
    this.saving = this.saving.then(write, write);
    return this.saving;
  }

  private async follow(): Promise<void> {
    const { log } = this.options;
    const signal = this.stopping.signal;
    const hold = this.options.holdSeconds ?? HOLD_SECONDS;
    while (!signal.aborted) {
      try {
        const waitSeconds = this.options.watch.anyPublishing ? hold.onAir : hold.idle;
        // The first question of this process is answered at once: the aircraft as they are now.
        const query =
          this.run === undefined
            ? `after=0`
            : `after=${String(this.seq)}&run=${encodeURIComponent(this.run)}` +
              (this.answered ? `&wait=${String(waitSeconds)}` : '');
        const answer = stageEventsAnswer.parse(
          await callStageControl(this.options.stage, {
            method: 'GET',
            path: `${STAGE_EVENTS_PATH}?${query}`,
            signal,
            timeoutMs: waitSeconds * 1000 + CONTROL_TIMEOUT_MS,
          }),
        );
        let after = this.seq;
        if (this.run !== undefined && answer.run !== this.run) {
          this.counts.stageRestarts += 1;
          after = 0;
          log.info({}, 'the local stage restarted: following its events from its first');
        }
        if (after < answer.first - 1) {
          const missed = answer.first - 1 - after;
          this.counts.missed += missed;
          log.warn(
            { missed, missedInAll: this.counts.missed },
            "stage events missed: the stage's ring no longer had them",
          );
        }
        await this.options.watch.apply(answer);
        this.answered = true;
        this.run = answer.run;
        this.seq = answer.events.at(-1)?.seq ?? Math.max(after, answer.first - 1);
        await this.save();
        if (this.failingSaid) log.info({}, "following the local stage's events again");
        this.failingSince = undefined;
        this.failingSaid = false;
      } catch (error) {
        if (signal.aborted) return;
        this.failingSince ??= performance.now();
        if (!this.failingSaid && performance.now() - this.failingSince >= QUIET_FAILING_MS) {
          log.warn({ err: error }, "cannot follow the local stage's events; retrying");
          this.failingSaid = true;
        }
        await sleep(this.options.retryMs ?? RETRY_MS, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
