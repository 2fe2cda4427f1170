/**
 * The configured webhook destinations (EVENT_WEBHOOK_URLS, decision 0098): every event goes to
 * each one's own queue (webhook-queue.ts), in DATA_DIR/event-webhooks/{hash of its URL}, so one
 * dead consumer never holds back another. A queue left by a URL no longer configured is removed
 * at start, with a line saying how many events it held.
 */
import { createHash } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeliveredEvent } from './ivs-events';
import { WebhookQueue, type QueueLog, type RetryPolicy } from './webhook-queue';

export const EVENT_WEBHOOKS_DIR = 'event-webhooks';

export interface EventWebhooksOptions {
  dataDir: string;
  urls: readonly string[];
  secret: Uint8Array;
  /** Events each destination's queue holds at most. */
  maxQueued: number;
  log: QueueLog;
  retry?: RetryPolicy;
  timeoutMs?: number;
}

/** Counts for the metrics, summed over the destinations. */
export interface WebhookCounts {
  queued: number;
  delivered: number;
  dropped: number;
  failedAttempts: number;
}

function queueDirName(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}

export class EventWebhooks {
  private constructor(private readonly queues: WebhookQueue[]) {}

  static async open(options: EventWebhooksOptions): Promise<EventWebhooks> {
    const root = join(options.dataDir, EVENT_WEBHOOKS_DIR);
    const wanted = new Set(options.urls.map(queueDirName));
    const existing = await readdir(root).catch(() => [] as string[]);
    for (const name of existing.filter((each) => !wanted.has(each))) {
      const left = await readdir(join(root, name)).catch(() => [] as string[]);
      await rm(join(root, name), { recursive: true, force: true });
      options.log.warn(
        { events: left.filter((file) => file.endsWith('.json')).length },
        'removed the webhook queue of a URL no longer in EVENT_WEBHOOK_URLS',
      );
    }
    const queues: WebhookQueue[] = [];
    for (const url of options.urls) {
      queues.push(
        await WebhookQueue.open({
          dir: join(root, queueDirName(url)),
          url,
          secret: options.secret,
          maxEvents: options.maxQueued,
          log: options.log,
          ...(options.retry === undefined ? {} : { retry: options.retry }),
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        }),
      );
    }
    return new EventWebhooks(queues);
  }

  /** Queues the events for every destination; resolves once they are on disk. */
  async publish(events: readonly DeliveredEvent[]): Promise<void> {
    for (const event of events) {
      const body = JSON.stringify(event);
      for (const queue of this.queues) await queue.add(body);
    }
  }

  start(): void {
    for (const queue of this.queues) queue.start();
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((queue) => queue.close()));
  }

  counts(): WebhookCounts {
    const counts = { queued: 0, delivered: 0, dropped: 0, failedAttempts: 0 };
    for (const queue of this.queues) {
      counts.queued += queue.queued;
      counts.delivered += queue.counts.delivered;
      counts.dropped += queue.counts.dropped;
      counts.failedAttempts += queue.counts.failedAttempts;
    }
    return counts;
  }
}
