import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerEventMetrics } from './events-metrics';
import type { StageEvents } from './stage-events';

describe('the events metrics', () => {
  it("reads the queues' and the feed's counts at each scrape, 0 before the events start", async () => {
    const registry = new Registry();
    const source: { counts?: ReturnType<StageEvents['counts']> } = {};
    registerEventMetrics(registry, () => {
      const counts = source.counts;
      return counts === undefined
        ? undefined
        : { close: async () => undefined, counts: () => counts };
    });
    expect(await registry.metrics()).toContain('tailcam_event_webhook_deliveries_total 0');
    source.counts = {
      queued: 3,
      delivered: 12,
      dropped: 2,
      failedAttempts: 5,
      stageEventsMissed: 7,
    };
    const text = await registry.metrics();
    for (const line of [
      'tailcam_event_webhook_deliveries_total 12',
      'tailcam_event_webhook_failed_attempts_total 5',
      'tailcam_event_webhook_dropped_total 2',
      'tailcam_stage_events_missed_total 7',
      'tailcam_event_webhook_queued 3',
    ]) {
      expect(text).toContain(line);
    }
  });
});
