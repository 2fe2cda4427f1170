/**
 * What the webhooks part (bench/parts/webhooks.ts) asks its driver process
 * (bench/lib/webhook-driver.ts) to run, and the figures the driver sends back over IPC, parsed on
 * arrival.
 */
import { z } from 'zod';

export const webhookRun = z.discriminatedUnion('kind', [
  /** The same events through the API's queue and through a plain `fetch` loop, pass by pass. */
  z.object({
    kind: z.literal('throughput'),
    url: z.string(),
    secretHex: z.string(),
    events: z.number().int().min(1),
    passes: z.number().int().min(1),
    /** Events through each, queue and loop, before the passes, unrecorded. */
    warmUpEvents: z.number().int().min(1),
  }),
  /** A consumer that takes nothing, fed more events than the queue holds. */
  z.object({
    kind: z.literal('dead'),
    url: z.string(),
    secretHex: z.string(),
    maxQueued: z.number().int().min(1),
    fed: z.number().int().min(1),
  }),
]);
export type WebhookRun = z.infer<typeof webhookRun>;
export type ThroughputRun = Extract<WebhookRun, { kind: 'throughput' }>;
export type DeadConsumerRun = Extract<WebhookRun, { kind: 'dead' }>;

const milliseconds = z.array(z.number());
/** The driver's CPU over a phase, ms: in its own code and in the kernel's (its system calls). */
const cpu = z.object({ userMs: z.number(), systemMs: z.number() });
export type CpuSpent = z.infer<typeof cpu>;

export const throughputFigures = z.object({
  kind: z.literal('throughput'),
  filesystem: z.string(),
  bytesPerEvent: z.number(),
  /** The driver's heap after a GC, after an unrecorded warm-up and after every pass. */
  heapBefore: z.number(),
  heapAfter: z.number(),
  passes: z.array(
    z.object({
      queueFirst: z.boolean(),
      /** Each `publish` of one event, ms. */
      enqueueMs: milliseconds,
      enqueueTotalMs: z.number(),
      enqueueCpu: cpu,
      /** From `start()` to the last event's 2xx. */
      deliverMs: z.number(),
      deliverCpu: cpu,
      peerMs: z.number(),
      peerCpu: cpu,
    }),
  ),
});
export type ThroughputFigures = z.infer<typeof throughputFigures>;

export const deadConsumerFigures = z.object({
  kind: z.literal('dead'),
  filesystem: z.string(),
  maxQueued: z.number(),
  fed: z.number(),
  /** Event files in the queue's directory after the feed. */
  filesKept: z.number(),
  queued: z.number(),
  dropped: z.number(),
  failedAttempts: z.number(),
  logLines: z.number(),
  /** The files' sizes summed, and what they take on disk (blocks, the directory's own too). */
  apparentBytes: z.number(),
  diskBytes: z.number(),
  /** Each `publish`, ms: while the queue had room, and once it was full (each drops the oldest). */
  enqueueMs: milliseconds,
  enqueueFullMs: milliseconds,
  feedMs: z.number(),
  /** After a garbage collection, before the feed and after it; the peak, all in bytes. */
  rssBefore: z.number(),
  rssAfter: z.number(),
  heapBefore: z.number(),
  heapAfter: z.number(),
  maxRss: z.number(),
  /** A restart's `open` over the full queue: its time and the events it found. */
  reopenMs: z.number(),
  reopenQueued: z.number(),
});
export type DeadConsumerFigures = z.infer<typeof deadConsumerFigures>;

export const driverReply = z.union([
  throughputFigures,
  deadConsumerFigures,
  z.object({ kind: z.literal('error'), message: z.string() }),
]);
