/**
 * The webhooks part's driver (bench/parts/webhooks.ts): the API's own webhook code
 * (event-webhooks.ts, webhook-queue.ts, the events of ivs-events.ts) in a process of its own, one
 * run each (bench/lib/webhook-runs.ts), so that its memory is the queue's and its CPU is not the
 * consumer's. Each run has a throwaway DATA_DIR under the system's temporary directory, removed at
 * the end. Started with `--expose-gc` and the run as JSON in its argument; sends its figures over
 * IPC and ends.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { STAGE_EVENT_NAMES } from '@tailcam/protocol/stage-control';
import { EVENT_WEBHOOKS_DIR, EventWebhooks } from '../../server/src/operations/event-webhooks';
import { stageUpdateEvent, type DeliveredEvent } from '../../server/src/operations/ivs-events';
import {
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
} from '../../server/src/operations/webhook-signature';
import {
  webhookRun,
  type CpuSpent,
  type DeadConsumerFigures,
  type DeadConsumerRun,
  type ThroughputFigures,
  type ThroughputRun,
} from './webhook-runs';

/** The longest the queue may take to deliver a pass's events before the run fails. */
const DELIVERY_LIMIT_MS = 60_000;
const AIRCRAFT = ['N743AS', 'N953AS', 'N954AS'];
/** The dead consumer's warm-up queue holds this many, and is fed twice as many. */
const DEAD_WARM_UP_MAX = 100;

/** statfs's magic numbers of the filesystems a DATA_DIR is likely on. */
const FILESYSTEMS: Record<number, string> = {
  0xef53: 'ext4',
  0x58465342: 'xfs',
  0x9123683e: 'btrfs',
  0x01021994: 'tmpfs',
  0x794c7630: 'overlayfs',
};

const stageRun = randomUUID();
const firstEventAt = Date.now();

/** A viewer's Joined or Left, as the stage's feed would have it, made by the API's own code. */
function eventAt(index: number): DeliveredEvent {
  return stageUpdateEvent(stageRun, {
    seq: index + 1,
    time: new Date(firstEventAt + index).toISOString(),
    stageId: AIRCRAFT[index % AIRCRAFT.length]!,
    name: STAGE_EVENT_NAMES[index % 2]!,
    role: 'viewer',
    participantId: randomUUID(),
    userId: `viewer-${String(index % 50)}`,
  });
}

function events(count: number): DeliveredEvent[] {
  return Array.from({ length: count }, (_, index) => eventAt(index));
}

function cpuSpent(since: NodeJS.CpuUsage): CpuSpent {
  const used = process.cpuUsage(since);
  return { userMs: used.user / 1000, systemMs: used.system / 1000 };
}

/** The heap after garbage collections, a turn of the event loop apart (finalizers run between). */
async function settledHeap(): Promise<NodeJS.MemoryUsage> {
  if (global.gc === undefined) throw new Error('the driver needs --expose-gc');
  for (let round = 0; round < 3; round += 1) {
    global.gc();
    await sleep(50);
  }
  return process.memoryUsage();
}

const quiet = { info: () => undefined, warn: () => undefined };
function countingLog() {
  const log = {
    lines: 0,
    info: () => (log.lines += 1),
    warn: () => (log.lines += 1),
  };
  return log;
}

async function filesystemOf(dir: string): Promise<string> {
  const { type } = await statfs(dir);
  return FILESYSTEMS[type] ?? `type 0x${type.toString(16)}`;
}

async function openQueue(dataDir: string, run: { url: string; secretHex: string }, max: number) {
  return EventWebhooks.open({
    dataDir,
    urls: [run.url],
    secret: Buffer.from(run.secretHex, 'hex'),
    maxQueued: max,
    log: quiet,
  });
}

/** Publishes each event alone, as the feed does for a page of one; each call's ms. */
async function publishEach(webhooks: EventWebhooks, batch: Iterable<DeliveredEvent>) {
  const durations: number[] = [];
  for (const event of batch) {
    const begun = performance.now();
    await webhooks.publish([event]);
    durations.push(performance.now() - begun);
  }
  return durations;
}

/** Events `from` to `to` made one at a time, so that the feed holds none in memory. */
function* made(from: number, to: number): Generator<DeliveredEvent> {
  for (let index = from; index < to; index += 1) yield eventAt(index);
}

async function throughputPass(run: ThroughputRun, batch: readonly DeliveredEvent[], root: string) {
  const dataDir = await mkdtemp(join(root, 'queue-'));
  const webhooks = await openQueue(dataDir, run, run.events);
  let cpu = process.cpuUsage();
  let started = performance.now();
  const enqueueMs = await publishEach(webhooks, batch);
  const enqueueTotalMs = performance.now() - started;
  const enqueueCpu = cpuSpent(cpu);
  cpu = process.cpuUsage();
  started = performance.now();
  webhooks.start();
  while (webhooks.counts().delivered < batch.length) {
    if (performance.now() - started > DELIVERY_LIMIT_MS) {
      throw new Error(`${webhooks.counts().delivered} of ${batch.length} delivered in a minute`);
    }
    await sleep(2);
  }
  const deliverMs = performance.now() - started;
  const deliverCpu = cpuSpent(cpu);
  await webhooks.close();
  await rm(dataDir, { recursive: true, force: true });
  return { enqueueMs, enqueueTotalMs, enqueueCpu, deliverMs, deliverCpu };
}

/** The peer: the same events, signed the same way, posted one at a time with no queue. */
async function peerPass(run: ThroughputRun, batch: readonly DeliveredEvent[]) {
  const secret = Buffer.from(run.secretHex, 'hex');
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const event of batch) {
    const body = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(run.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [EVENT_ID_HEADER]: event.id,
        [TIMESTAMP_HEADER]: String(timestamp),
        [SIGNATURE_HEADER]: signWebhook(secret, timestamp, body),
      },
      body,
      redirect: 'manual',
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`the consumer answered the peer ${response.status}`);
  }
  return { peerMs: performance.now() - started, peerCpu: cpuSpent(cpu) };
}

async function throughput(run: ThroughputRun, root: string): Promise<ThroughputFigures> {
  const batch = events(run.events);
  // Unrecorded: the code paths compiled and the connection to the consumer open for both.
  const warmUp = events(run.warmUpEvents);
  await throughputPass(run, warmUp, root);
  await peerPass(run, warmUp);
  const before = await settledHeap();
  const passes: ThroughputFigures['passes'] = [];
  for (let pass = 0; pass < run.passes; pass += 1) {
    // Alternately first, so that neither always meets the machine warmer or busier.
    const queueFirst = pass % 2 === 0;
    const peer = queueFirst ? undefined : await peerPass(run, batch);
    const queue = await throughputPass(run, batch, root);
    passes.push({ queueFirst, ...queue, ...(peer ?? (await peerPass(run, batch))) });
  }
  const after = await settledHeap();
  return {
    kind: 'throughput',
    heapBefore: before.heapUsed,
    heapAfter: after.heapUsed,
    filesystem: await filesystemOf(root),
    bytesPerEvent: Math.round(
      batch.reduce((sum, event) => sum + JSON.stringify(event).length, 0) / batch.length,
    ),
    passes,
  };
}

/** What the queue's directory holds: its event files, their bytes, and the blocks they take. */
async function onDisk(dataDir: string) {
  const root = join(dataDir, EVENT_WEBHOOKS_DIR);
  const [queueDir] = await readdir(root);
  if (queueDir === undefined) throw new Error('the queue has no directory');
  const dir = join(root, queueDir);
  const names = (await readdir(dir)).filter((name) => name.endsWith('.json'));
  let apparentBytes = 0;
  let diskBytes = (await stat(dir)).blocks * 512;
  for (const name of names) {
    const file = await stat(join(dir, name));
    apparentBytes += file.size;
    diskBytes += file.blocks * 512;
  }
  return { filesKept: names.length, apparentBytes, diskBytes };
}

async function deadConsumer(run: DeadConsumerRun, root: string): Promise<DeadConsumerFigures> {
  // Unrecorded, in a queue of its own: the code paths of adding, dropping and failing compiled
  // (their bytecode is on the heap too), so that the growth below is what the queue holds.
  const warmUpDir = await mkdtemp(join(root, 'warm-up-'));
  const warmUp = await openQueue(warmUpDir, run, DEAD_WARM_UP_MAX);
  warmUp.start();
  await publishEach(warmUp, made(0, 2 * DEAD_WARM_UP_MAX));
  await warmUp.close();
  await rm(warmUpDir, { recursive: true, force: true });

  const dataDir = await mkdtemp(join(root, 'queue-'));
  const log = countingLog();
  const webhooks = await EventWebhooks.open({
    dataDir,
    urls: [run.url],
    secret: Buffer.from(run.secretHex, 'hex'),
    maxQueued: run.maxQueued,
    log,
  });
  // Delivering as the API does: each attempt fails, and the next waits its backoff.
  webhooks.start();
  const before = await settledHeap();
  const started = performance.now();
  const enqueueMs = await publishEach(webhooks, made(0, run.maxQueued));
  const enqueueFullMs = await publishEach(webhooks, made(run.maxQueued, run.fed));
  const feedMs = performance.now() - started;
  const after = await settledHeap();
  const counts = webhooks.counts();
  await webhooks.close();
  const disk = await onDisk(dataDir);
  // A restart over the full queue: the API's start reads and sorts its file names.
  const reopenStarted = performance.now();
  const reopened = await openQueue(dataDir, run, run.maxQueued);
  const reopenMs = performance.now() - reopenStarted;
  const reopenQueued = reopened.counts().queued;
  await reopened.close();
  await rm(dataDir, { recursive: true, force: true });
  return {
    kind: 'dead',
    filesystem: await filesystemOf(root),
    maxQueued: run.maxQueued,
    fed: run.fed,
    ...disk,
    queued: counts.queued,
    dropped: counts.dropped,
    failedAttempts: counts.failedAttempts,
    logLines: log.lines,
    enqueueMs,
    enqueueFullMs,
    feedMs,
    rssBefore: before.rss,
    rssAfter: after.rss,
    heapBefore: before.heapUsed,
    heapAfter: after.heapUsed,
    maxRss: process.resourceUsage().maxRSS * 1024,
    reopenMs,
    reopenQueued,
  };
}

const run = webhookRun.parse(JSON.parse(process.argv[2] ?? '{}'));
const root = await mkdtemp(join(tmpdir(), 'tailcam-bench-webhooks-'));
try {
  const figures =
    run.kind === 'throughput' ? await throughput(run, root) : await deadConsumer(run, root);
  process.send?.(figures);
} catch (error) {
  process.send?.({
    kind: 'error',
    message: error instanceof Error ? error.message : String(error),
  });
} finally {
  await rm(root, { recursive: true, force: true });
  process.disconnect?.();
}
