/**
 * A Chromium WHIP publisher's ramp-up (issue 27): a noisy 1280x720 canvas published to N953AS on
 * loopback, 10 s from its connection, once offering no congestion feedback (the stage before issue
 * 27: receiver reports only) and once with the stage's transport-wide CC feedback, rounds
 * alternating under the same load. Its own stats say how far its congestion controller got
 * (`availableOutgoingBitrate`), what its encoder aimed at (`targetBitrate`) and sent, and what
 * held it (`qualityLimitationReason`: on two cores the encoder may be the limit, not the link).
 */
import { median } from '@tailcam/harness/stats';
import {
  describeSample,
  serveCanvasPublisherPage,
  startCanvasPublisher,
  stopCanvasPublisher,
  watchCanvasPublisher,
  type CanvasPublisherSample,
} from '@tailcam/harness/canvas-publisher';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';

const STREAM = 'N953AS';
const WATCH_MS = 10_000;
const ROUNDS = 2;
const ESTIMATE_KBPS = 1500;
const TARGET_KBPS = 1200;

interface Ramp {
  /** The highest estimate and target within WATCH_MS, kbit/s. */
  estimateKbps: number;
  targetKbps: number;
  /** When the estimate first reached ESTIMATE_KBPS, s (undefined: never). */
  reachedAt: number | undefined;
  /** Sent over the last 5 s, kbit/s. */
  sentKbps: number;
  reasons: string;
}

function ramp(samples: CanvasPublisherSample[]): Ramp {
  const highest = (values: (number | undefined)[]) => Math.max(0, ...values.map((v) => v ?? 0));
  const late = samples.filter((sample) => sample.seconds > WATCH_MS / 1000 - 5);
  return {
    estimateKbps: highest(samples.map((sample) => sample.estimateKbps)),
    targetKbps: highest(samples.map((sample) => sample.targetKbps)),
    reachedAt: samples.find((sample) => (sample.estimateKbps ?? 0) >= ESTIMATE_KBPS)?.seconds,
    sentKbps: median(late.map((sample) => sample.sentKbps)),
    reasons: [...new Set(late.map((sample) => sample.qualityLimitationReason ?? '?'))].join('/'),
  };
}

async function publishOnce(bench: BenchContext, withoutFeedback: boolean): Promise<Ramp> {
  const served = await serveCanvasPublisherPage();
  const context = await bench.browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(served.url);
    await startCanvasPublisher(page, { ...bench.product.publishToken(STREAM), withoutFeedback });
    const samples = await watchCanvasPublisher(page, { maxMs: WATCH_MS });
    console.log(`  ${withoutFeedback ? 'without feedback' : 'with feedback'}:`);
    for (const sample of samples) console.log(`    ${describeSample(sample)}`);
    return ramp(samples);
  } finally {
    await stopCanvasPublisher(page).catch(() => undefined);
    await context.close();
    await served.close();
    // The camera takes the aircraft back before the next round.
    await new Promise((done) => setTimeout(done, 3_000));
  }
}

export async function runPublish(bench: BenchContext): Promise<BenchRow[]> {
  const runs: Record<'without' | 'with', Ramp[]> = { without: [], with: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    runs.without.push(await publishOnce(bench, true));
    runs.with.push(await publishOnce(bench, false));
  }
  const m = (group: Ramp[], pick: (ramp: Ramp) => number) => round(median(group.map(pick)));
  const reached = runs.with.map((run) => run.reachedAt);
  return [
    {
      part: 'publish',
      what: `Chromium WHIP publisher, noisy 1280x720 canvas, loopback: its estimate within ${WATCH_MS / 1000} s (n=${ROUNDS} each)`,
      target: `≥ ${ESTIMATE_KBPS} kbit/s`,
      median: `${m(runs.with, (run) => run.estimateKbps)} kbit/s (without feedback ${m(runs.without, (run) => run.estimateKbps)})`,
      p95: `reached at ${reached.map((at) => (at === undefined ? 'never' : `${round(at, 1)} s`)).join(', ')}`,
      pass: runs.with.every((run) => run.estimateKbps >= ESTIMATE_KBPS),
      note: `sent over the last 5 s ${m(runs.with, (run) => run.sentKbps)} kbit/s (without ${m(runs.without, (run) => run.sentKbps)}), limited by ${runs.with.map((run) => run.reasons).join(', ')} (without: ${runs.without.map((run) => run.reasons).join(', ')})`,
    },
    {
      part: 'publish',
      what: `the same publisher's encoder target within ${WATCH_MS / 1000} s`,
      target: `> ${TARGET_KBPS} kbit/s`,
      median: `${m(runs.with, (run) => run.targetKbps)} kbit/s (without feedback ${m(runs.without, (run) => run.targetKbps)})`,
      p95: '',
      pass: runs.with.every((run) => run.targetKbps > TARGET_KBPS),
      note: '',
    },
  ];
}
