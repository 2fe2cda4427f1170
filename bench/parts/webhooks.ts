/**
 * What the webhook delivery costs (docs/benchmarks.md, Webhooks; decision 0098), with the API's
 * own queue and delivery code (server/src/operations/event-webhooks.ts, webhook-queue.ts) run by
 * a driver process (bench/lib/webhook-driver.ts) in a throwaway DATA_DIR, against a consumer
 * process on 127.0.0.1 that verifies every signature (bench/lib/webhook-consumer.ts):
 * - an event onto the disk queue (one `publish`: a write and a rename), ms;
 * - deliveries a second from a queue of EVENTS, one at a time as the API sends them, and the same
 *   events signed and posted by a plain `fetch` loop with no queue, passes alternating which goes
 *   first: the ratio is what the disk queue adds;
 * - a dead consumer fed more than the queue holds: one answering 503 (a max of 2,000 fed 2,400),
 *   then a closed port (the default max, 10,000, fed 12,000): the files kept, the drops, the disk,
 *   the driver's memory, and a restart's `open` over the full queue.
 * Needs neither the product nor a browser (bench/run.ts starts neither for it alone).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { loadAverage } from '@tailcam/harness/load-average';
import { median, p95 } from '@tailcam/harness/stats';
import { DEFAULT_WEBHOOK_QUEUE_MAX } from '../../server/src/operations/events-config';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';
import {
  driverReply,
  type CpuSpent,
  type DeadConsumerFigures,
  type ThroughputFigures,
  type WebhookRun,
} from '../lib/webhook-runs';

const EVENTS = 1_000;
const PASSES = 5;
const WARM_UP_EVENTS = 200;
const SMALL_MAX = 2_000;
/** Fed 20 % more than the queue holds. */
const OVERFILL = 1.2;
/** A driver's run that has not answered by then has failed. */
const RUN_LIMIT_MS = 90_000;

const CONSUMER = fileURLToPath(new URL('../lib/webhook-consumer.ts', import.meta.url));
const DRIVER = fileURLToPath(new URL('../lib/webhook-driver.ts', import.meta.url));
/** The children load TypeScript as the bench does, whatever their directory. */
const TSX = ['--import', import.meta.resolve('tsx')];

const consumerCounts = z.object({ verified: z.number(), refused: z.number(), dead: z.number() });

/** The first IPC message of a child, parsed; the child is killed if none comes in `limitMs`. */
function firstMessage<T>(
  child: ChildProcess,
  name: string,
  schema: z.ZodType<T>,
  limitMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer from the ${name} in ${limitMs / 1000} s`));
    }, limitMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      const parsed = schema.safeParse(message);
      if (parsed.success) resolve(parsed.data);
      else reject(new Error(`unexpected message from the ${name}: ${parsed.error.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the ${name} ended (${String(code)}) without an answer`));
    });
  });
}

async function drive(run: WebhookRun) {
  const driver = fork(DRIVER, [JSON.stringify(run)], {
    execArgv: [...TSX, '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => driver.once('exit', resolve));
  try {
    const reply = await firstMessage(driver, 'webhook driver', driverReply, RUN_LIMIT_MS);
    if (reply.kind === 'error') throw new Error(`the webhook driver: ${reply.message}`);
    // It removes its DATA_DIR, then ends.
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    return reply;
  } finally {
    if (driver.exitCode === null && driver.signalCode === null) driver.kill('SIGKILL');
  }
}

/** A port nothing listens on: one the system just gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function countsOf(consumerUrl: string) {
  const response = await fetch(`${consumerUrl}/counts`);
  if (!response.ok) throw new Error(`the consumer's counts: ${response.status}`);
  return consumerCounts.parse(await response.json());
}

const thousands = (value: number) => Math.round(value).toLocaleString('en-US');
const megabytes = (bytes: number) => `${round(bytes / 1e6, 1)} MB`;
const growth = (bytes: number) => `${bytes < 0 ? '−' : '+'}${round(Math.abs(bytes) / 1e6, 2)} MB`;
const rate = (events: number, ms: number) => (events * 1000) / ms;
const total = (cpu: CpuSpent) => cpu.userMs + cpu.systemMs;

function throughputRows(
  figures: ThroughputFigures,
  checked: { verified: number; refused: number; expected: number },
  load: string,
): BenchRow[] {
  const passes = figures.passes;
  const enqueue = passes.flatMap((pass) => pass.enqueueMs);
  const queueRates = passes.map((pass) => rate(EVENTS, pass.deliverMs));
  const peerRates = passes.map((pass) => rate(EVENTS, pass.peerMs));
  const deliveryRatio = median(passes.map((pass) => pass.deliverMs / pass.peerMs));
  const wholeRatio = median(
    passes.map((pass) => (pass.enqueueTotalMs + pass.deliverMs) / pass.peerMs),
  );
  const cpuRatio = median(
    passes.map((pass) => (total(pass.enqueueCpu) + total(pass.deliverCpu)) / total(pass.peerCpu)),
  );
  /** The median pass's CPU an event, µs, and the kernel's share of it. */
  const cpuUs = (phase: (pass: (typeof passes)[number]) => CpuSpent) => {
    const user = median(passes.map((pass) => phase(pass).userMs));
    const system = median(passes.map((pass) => phase(pass).systemMs));
    const perEvent = (ms: number) => round((ms * 1000) / EVENTS);
    return `CPU ${perEvent(user + system)} µs an event (${perEvent(system)} in system calls)`;
  };
  const allSigned = checked.refused === 0 && checked.verified === checked.expected;
  const signed = allSigned
    ? `the consumer verified all ${thousands(checked.verified)} signatures`
    : `the consumer verified ${thousands(checked.verified)} of ${thousands(checked.expected)} and refused ${checked.refused}`;
  const range = (values: number[]) =>
    `${thousands(Math.min(...values))}–${thousands(Math.max(...values))} a second`;
  return [
    {
      part: 'webhooks',
      what: 'an event onto the disk queue (publish: write, rename)',
      target: 'informative',
      median: `${round(median(enqueue), 3)} ms`,
      p95: `${round(p95(enqueue), 3)} ms`,
      pass: undefined,
      note:
        `${thousands(enqueue.length)} events (${PASSES} passes of ${thousands(EVENTS)}), ${figures.bytesPerEvent} bytes each, ` +
        `in a throwaway DATA_DIR on ${figures.filesystem}; ` +
        `${cpuUs((pass) => pass.enqueueCpu)}; load ${load}`,
    },
    {
      part: 'webhooks',
      what: `deliveries a second, queue of ${thousands(EVENTS)} to a consumer on 127.0.0.1`,
      target: 'informative',
      median: `${thousands(median(queueRates))} a second`,
      p95: range(queueRates),
      pass: allSigned ? undefined : false,
      note:
        `one at a time, signed at each attempt; ${signed}; ` +
        `${cpuUs((pass) => pass.deliverCpu)} (the driver's); ` +
        `the driver's heap ${growth(figures.heapAfter - figures.heapBefore)} after a GC over the passes ` +
        `(${megabytes(figures.heapAfter)}), after an unrecorded warm-up`,
    },
    {
      part: 'webhooks',
      what: 'the peer: the same events signed and posted by a plain fetch loop, no queue',
      target: 'informative',
      median: `${thousands(median(peerRates))} a second`,
      p95: range(peerRates),
      pass: undefined,
      note: `${cpuUs((pass) => pass.peerCpu)} (the driver's)`,
    },
    {
      part: 'webhooks',
      what: 'the disk queue against the plain loop, time for the same events (ratio)',
      target: 'informative',
      median: `${round(deliveryRatio, 2)} delivering a queue`,
      p95: `${round(wholeRatio, 2)} queueing + delivering`,
      pass: undefined,
      note:
        `medians of ${PASSES} passes' ratios, alternating which went first; ` +
        `CPU, queueing + delivering against the loop: ${round(cpuRatio, 2)}`,
    },
  ];
}

function deadRow(figures: DeadConsumerFigures, consumer: string, load: string): BenchRow {
  const expectedDrops = figures.fed - figures.maxQueued;
  const bounded =
    figures.filesKept === figures.maxQueued &&
    figures.dropped === expectedDrops &&
    figures.reopenQueued === figures.maxQueued;
  return {
    part: 'webhooks',
    what: `a dead consumer (${consumer}), EVENT_WEBHOOK_QUEUE_MAX=${thousands(figures.maxQueued)} fed ${thousands(figures.fed)}`,
    target: 'informative',
    median: `${thousands(figures.filesKept)} kept, ${thousands(figures.dropped)} dropped`,
    p95: `${megabytes(figures.diskBytes)} on disk, heap ${growth(figures.heapAfter - figures.heapBefore)}`,
    pass: bounded ? undefined : false,
    note:
      (bounded ? '' : `expected ${figures.maxQueued} kept and ${expectedDrops} dropped; `) +
      `${thousands(figures.apparentBytes)} bytes in files (${figures.filesystem}); ` +
      `the driver's heap after a GC ${megabytes(figures.heapBefore)} → ${megabytes(figures.heapAfter)} ` +
      `(${round((figures.heapAfter - figures.heapBefore) / figures.maxQueued)} bytes a queued event; after an unrecorded warm-up), ` +
      `RSS ${megabytes(figures.rssBefore)} → ${megabytes(figures.rssAfter)} (${growth(figures.rssAfter - figures.rssBefore)}, peak ${megabytes(figures.maxRss)}); ` +
      `a publish ${round(median(figures.enqueueMs), 3)} ms median, ${round(p95(figures.enqueueMs), 3)} p95 with room, ` +
      `${round(median(figures.enqueueFullMs), 3)} / ${round(p95(figures.enqueueFullMs), 3)} once full; ` +
      `fed in ${round(figures.feedMs / 1000, 1)} s; ${figures.failedAttempts} attempts meanwhile, ${figures.logLines} log lines; ` +
      `a restart's open over the full queue ${round(figures.reopenMs)} ms (${thousands(figures.reopenQueued)} found); load ${load}`,
  };
}

export async function runWebhooks(): Promise<BenchRow[]> {
  const secretHex = randomBytes(32).toString('hex');
  const consumer = fork(CONSUMER, [secretHex], {
    execArgv: TSX,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const { port } = await firstMessage(
      consumer,
      'webhook consumer',
      z.object({ port: z.number() }),
      30_000,
    );
    const consumerUrl = `http://127.0.0.1:${port}`;
    const rows: BenchRow[] = [];

    let load = loadAverage();
    console.log(
      `  webhooks: ${PASSES} passes of ${EVENTS} events, queue and plain loop (load ${load})`,
    );
    const before = await countsOf(consumerUrl);
    const throughput = await drive({
      kind: 'throughput',
      url: `${consumerUrl}/hook?token=bench`,
      secretHex,
      events: EVENTS,
      passes: PASSES,
      warmUpEvents: WARM_UP_EVENTS,
    });
    if (throughput.kind !== 'throughput') throw new Error('the driver answered another run');
    const after = await countsOf(consumerUrl);
    rows.push(
      ...throughputRows(
        throughput,
        {
          verified: after.verified - before.verified,
          refused: after.refused - before.refused,
          // Each event twice a pass (queue, loop), and the warm-up's.
          expected: 2 * (EVENTS * PASSES + WARM_UP_EVENTS),
        },
        load,
      ),
    );
    console.log(`  webhooks: ${rows[1]!.median} through the queue, ${rows[2]!.median} plain`);

    const dead: { consumer: string; url: string; maxQueued: number }[] = [
      { consumer: 'answering 503', url: `${consumerUrl}/dead`, maxQueued: SMALL_MAX },
      {
        consumer: 'a closed port',
        url: `http://127.0.0.1:${await closedPort()}/hook`,
        maxQueued: DEFAULT_WEBHOOK_QUEUE_MAX,
      },
    ];
    for (const each of dead) {
      load = loadAverage();
      const fed = Math.round(each.maxQueued * OVERFILL);
      console.log(`  webhooks: a dead consumer (${each.consumer}) fed ${fed} (load ${load})`);
      const figures = await drive({
        kind: 'dead',
        url: each.url,
        secretHex,
        maxQueued: each.maxQueued,
        fed,
      });
      if (figures.kind !== 'dead') throw new Error('the driver answered another run');
      rows.push(deadRow(figures, each.consumer, load));
      console.log(`  webhooks: ${rows.at(-1)!.median}, ${rows.at(-1)!.p95}`);
    }
    console.log(`  webhooks: load average now ${loadAverage()}`);
    return rows;
  } finally {
    consumer.kill();
  }
}
