/**
 * One webhook destination's queue (decision 0098): each event a file in its own directory under
 * DATA_DIR, written before the stage's feed moves its cursor and removed once the consumer
 * answered 2xx, so an API that stops or crashes loses none. Delivered one at a time, in order,
 * signed at each attempt (webhook-signature.ts); a failure waits an exponential backoff with
 * jitter before the same event is tried again. Bounded: past `maxEvents` the oldest is dropped,
 * counted and logged, so a dead consumer costs at most that much disk, and memory only its file
 * names.
 */
import { mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
} from './webhook-signature';

export interface QueueLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface RetryPolicy {
  /** The first wait after a failure; each next one twice the last, up to `maxMs`. */
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 1_000, maxMs: 5 * 60_000 };
/** A consumer that has not answered by then has failed this attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Drops are logged at most this often (with how many since the last line). */
const DROP_LOG_MS = 60_000;

export interface WebhookQueueOptions {
  dir: string;
  url: string;
  secret: Uint8Array;
  maxEvents: number;
  log: QueueLog;
  retry?: RetryPolicy;
  timeoutMs?: number;
  /** In [0, 1): the jitter (tests fix it). */
  random?: () => number;
  now?: () => number;
}

/** The wait before attempt `failures + 1`: half the doubled delay, plus up to the other half at random. */
export function backoffMs(failures: number, retry: RetryPolicy, random: () => number): number {
  const full = Math.min(retry.maxMs, retry.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

const FILE_NAME = /^\d{16}\.json$/;

export class WebhookQueue {
  /** Its events' file names, oldest first. */
  private files: string[] = [];
  private nextNumber = 1;
  private wake: (() => void) | undefined;
  private readonly closing = new AbortController();
  private running: Promise<void> | undefined;
  /** Failed attempts in a row (the consumer's, whichever event was at the head). */
  private failures = 0;
  private dropsUnlogged = 0;
  private dropLoggedAt = -Infinity;
  /** For the metrics: delivered, dropped for room, failed attempts. */
  readonly counts = { delivered: 0, dropped: 0, failedAttempts: 0 };
  /** Where it delivers, for logs: the URL's origin (its path or query may hold a token). */
  readonly destination: string;

  private constructor(private readonly options: WebhookQueueOptions) {
    this.destination = new URL(options.url).origin;
  }

  /** Opens the queue in `dir` (created if need be) with the events a previous run left there. */
  static async open(options: WebhookQueueOptions): Promise<WebhookQueue> {
    const queue = new WebhookQueue(options);
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const names = await readdir(options.dir);
    for (const name of names) {
      // A write cut short by a crash: its event was never acknowledged to the feed.
      if (name.endsWith('.tmp')) await rm(join(options.dir, name), { force: true });
    }
    queue.files = names.filter((name) => FILE_NAME.test(name)).sort();
    const newest = queue.files.at(-1);
    queue.nextNumber = newest === undefined ? 1 : Number(newest.slice(0, 16)) + 1;
    if (queue.files.length > 0) {
      options.log.info(
        { destination: queue.destination, queued: queue.files.length },
        'webhook events left from before the restart: delivering them',
      );
    }
    await queue.dropBeyond(options.maxEvents);
    return queue;
  }

  get queued(): number {
    return this.files.length;
  }

  /** Writes the event to disk (resolves once it is there) and wakes the delivery. */
  async add(body: string): Promise<void> {
    const name = `${String(this.nextNumber++).padStart(16, '0')}.json`;
    const path = join(this.options.dir, name);
    await writeFile(`${path}.tmp`, body, { mode: 0o600 });
    await rename(`${path}.tmp`, path);
    this.files.push(name);
    await this.dropBeyond(this.options.maxEvents);
    this.wake?.();
  }

  start(): void {
    this.running ??= this.deliverAll();
  }

  /** Stops delivering (an attempt under way is cut); what is queued stays on disk. */
  async close(): Promise<void> {
    this.closing.abort();
    this.wake?.();
    await this.running;
  }

  private async dropBeyond(max: number): Promise<void> {
    while (this.files.length > max) {
      const oldest = this.files.shift()!;
      await rm(join(this.options.dir, oldest), { force: true });
      this.counts.dropped += 1;
      this.dropsUnlogged += 1;
    }
    const now = (this.options.now ?? Date.now)();
    if (this.dropsUnlogged > 0 && now - this.dropLoggedAt >= DROP_LOG_MS) {
      this.options.log.warn(
        {
          destination: this.destination,
          dropped: this.dropsUnlogged,
          droppedInAll: this.counts.dropped,
          max,
        },
        'webhook queue full: the oldest events were dropped undelivered',
      );
      this.dropsUnlogged = 0;
      this.dropLoggedAt = now;
    }
  }

  private async deliverAll(): Promise<void> {
    const signal = this.closing.signal;
    while (!signal.aborted) {
      const name = this.files[0];
      if (name === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      const path = join(this.options.dir, name);
      let body: string;
      try {
        body = await readFile(path, 'utf8');
      } catch {
        // Dropped for room meanwhile.
        if (this.files[0] === name) this.files.shift();
        continue;
      }
      const failure = await this.post(body);
      if (failure === undefined) {
        // Taken: removed even when closing meanwhile, or a restart would send it again.
        if (this.files[0] === name) this.files.shift();
        await unlink(path).catch(() => undefined);
        this.counts.delivered += 1;
        this.failures = 0;
        continue;
      }
      if (signal.aborted) return;
      this.counts.failedAttempts += 1;
      this.failures += 1;
      const waitMs = backoffMs(
        this.failures,
        this.options.retry ?? DEFAULT_RETRY,
        this.options.random ?? Math.random,
      );
      this.options.log.warn(
        {
          destination: this.destination,
          failure,
          attempt: this.failures,
          retryInMs: waitMs,
          queued: this.files.length,
        },
        'webhook delivery failed; retrying',
      );
      await sleep(waitMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /** One attempt: undefined when the consumer took it (2xx), else what went wrong. */
  private async post(body: string): Promise<string | undefined> {
    const timestamp = Math.floor((this.options.now ?? Date.now)() / 1000);
    let id = '';
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed === 'object' && parsed !== null && 'id' in parsed) id = String(parsed.id);
    } catch {
      // Written by this process: never not JSON. Sent as it is all the same.
    }
    try {
      const response = await fetch(this.options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Tailcam-Webhook/1',
          [EVENT_ID_HEADER]: id,
          [TIMESTAMP_HEADER]: String(timestamp),
          [SIGNATURE_HEADER]: signWebhook(this.options.secret, timestamp, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([
          this.closing.signal,
          AbortSignal.timeout(this.options.timeoutMs ?? DELIVERY_TIMEOUT_MS),
        ]),
      });
      await response.body?.cancel().catch(() => undefined);
      return response.status >= 200 && response.status < 300
        ? undefined
        : `answered ${String(response.status)}`;
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      const code = (cause as NodeJS.ErrnoException | undefined)?.code;
      return code ?? (error instanceof Error ? error.name : 'failed');
    }
  }
}
