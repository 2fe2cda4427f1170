/**
 * The events' figures in the metrics endpoint's registry (decisions 0097, 0098): the webhook
 * queues' deliveries, failed attempts, drops and depth, and the stage events the feed missed.
 * Read at each scrape from the counts the queues and the feed keep.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { StageEvents } from './stage-events';

export function registerEventMetrics(
  registry: Registry,
  events: () => StageEvents | undefined,
): void {
  const registers = [registry];
  const counter = (name: string, help: string, read: (counts: Counts) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        const counts = events()?.counts();
        this.reset();
        this.inc(counts === undefined ? 0 : read(counts));
      },
    });
  counter(
    'tailcam_event_webhook_deliveries_total',
    'Events a webhook consumer took (2xx), all URLs together.',
    (counts) => counts.delivered,
  );
  counter(
    'tailcam_event_webhook_failed_attempts_total',
    'Webhook attempts that failed (another status, no answer, no connection); each is retried.',
    (counts) => counts.failedAttempts,
  );
  counter(
    'tailcam_event_webhook_dropped_total',
    'Events dropped undelivered because a URL held EVENT_WEBHOOK_QUEUE_MAX already.',
    (counts) => counts.dropped,
  );
  counter(
    'tailcam_stage_events_missed_total',
    "Stage events the API's feed never read: its stage's ring no longer had them.",
    (counts) => counts.stageEventsMissed,
  );
  new Gauge({
    name: 'tailcam_event_webhook_queued',
    help: 'Events on disk waiting for their webhook consumer, all URLs together.',
    registers,
    collect() {
      this.set(events()?.counts().queued ?? 0);
    },
  });
}

type Counts = ReturnType<StageEvents['counts']>;
