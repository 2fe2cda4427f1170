/**
 * The API's events, put together (decision 0098): the stage's feed (stage-event-feed.ts) drives
 * the on-air watch (on-air-watch.ts), which writes the operations state the operator's page reads
 * and queues IVS-shaped events for every configured webhook (event-webhooks.ts). Local stage only:
 * with IVS, IVS's own events go to the consumer through EventBridge.
 */
import { join } from 'node:path';
import type { Config } from '../config';
import type { StageControl } from '../providers/local-provider';
import { EventWebhooks, type WebhookCounts } from './event-webhooks';
import { OnAirWatch } from './on-air-watch';
import type { OperationsStateStore } from './operations-state';
import { EVENT_FEED_FILE, StageEventFeed } from './stage-event-feed';
import type { RetryPolicy } from './webhook-queue';

export interface StageEventsOptions {
  config: Pick<Config, 'dataDir' | 'events'>;
  aircraft: readonly string[];
  stage: StageControl;
  webhookSecret: Uint8Array;
  operations: OperationsStateStore;
  log: {
    info(details: object, message: string): void;
    warn(details: object, message: string): void;
  };
  /** Tests shorten these. */
  retry?: RetryPolicy;
  holdSeconds?: { idle: number; onAir: number };
}

export interface StageEvents {
  close(): Promise<void>;
  /** For the metrics: webhook deliveries, and stage events the feed missed. */
  counts(): WebhookCounts & { stageEventsMissed: number };
}

/** Opens the webhook queues (what a previous run left is delivered first) and follows the stage. */
export async function startStageEvents(options: StageEventsOptions): Promise<StageEvents> {
  const { config, log } = options;
  const webhooks = await EventWebhooks.open({
    dataDir: config.dataDir,
    urls: config.events.webhookUrls,
    secret: options.webhookSecret,
    maxQueued: config.events.queueMax,
    log,
    ...(options.retry === undefined ? {} : { retry: options.retry }),
  });
  // The watch saves through the feed (its memory goes with the cursor), which follows into it.
  const saving: { feed?: StageEventFeed } = {};
  const watch = new OnAirWatch({
    aircraft: options.aircraft,
    state: options.operations,
    graceMs: config.events.offAirGraceSeconds * 1000,
    publish: (events) => webhooks.publish(events),
    persist: () => saving.feed?.save() ?? Promise.resolve(),
    log,
  });
  const feed = new StageEventFeed({
    stage: options.stage,
    file: join(config.dataDir, EVENT_FEED_FILE),
    watch,
    log,
    ...(options.holdSeconds === undefined ? {} : { holdSeconds: options.holdSeconds }),
  });
  saving.feed = feed;
  webhooks.start();
  await feed.start();
  if (config.events.webhookUrls.length > 0) {
    log.info({ webhooks: config.events.webhookUrls.length }, 'sending stage events to webhooks');
  }
  return {
    close: async () => {
      watch.close();
      await feed.close();
      await webhooks.close();
    },
    counts: () => ({ ...webhooks.counts(), stageEventsMissed: feed.counts.missed }),
  };
}
