/**
 * A Chromium WHIP publisher's ramp-up (decision 0066): a 1280x720 canvas of grain under a moving bar
 * (page/canvas-publisher-page.ts) published to N953AS on loopback, 10 s from its connection,
 * once offering no congestion feedback (the stage before decision 0066: receiver reports only) and
 * once with the stage's transport-wide CC feedback, rounds alternating under the same load. The
 * encoder holds 720p (`maintain-resolution`), so its own resolution choices do not decide the
 * figure; a third publisher, with feedback, leaves Chromium its default (it may start at 320x180
 * from its 300 kbit/s start rate, and then sends no more than that size allows until it scales
 * up). Its own stats say how far its congestion controller got (`availableOutgoingBitrate`), what
 * its encoder aimed at (`targetBitrate`) and sent, and what held it (`qualityLimitationReason`).
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
  /** Frame width and rate over the last 5 s (medians). */
  frameWidth: number;
  framesPerSecond: number;
}

interface Variant {
  label: string;
  withoutFeedback: boolean;
  holdResolution: boolean;
}

const VARIANTS = {
  without: { label: 'without feedback, 720p held', withoutFeedback: true, holdResolution: true },
  with: { label: 'with feedback, 720p held', withoutFeedback: false, holdResolution: true },
  chromiumDefault: {
    label: "with feedback, Chromium's own resolution",
    withoutFeedback: false,
    holdResolution: false,
  },
} satisfies Record<string, Variant>;

function ramp(samples: CanvasPublisherSample[]): Ramp {
  const highest = (values: (number | undefined)[]) => Math.max(0, ...values.map((v) => v ?? 0));
  const late = samples.filter((sample) => sample.seconds > WATCH_MS / 1000 - 5);
  return {
    estimateKbps: highest(samples.map((sample) => sample.estimateKbps)),
    targetKbps: highest(samples.map((sample) => sample.targetKbps)),
    reachedAt: samples.find((sample) => (sample.estimateKbps ?? 0) >= ESTIMATE_KBPS)?.seconds,
    sentKbps: median(late.map((sample) => sample.sentKbps)),
    reasons: [...new Set(late.map((sample) => sample.qualityLimitationReason ?? '?'))].join('/'),
    frameWidth: median(late.map((sample) => sample.frameWidth ?? 0)),
    framesPerSecond: median(late.map((sample) => sample.framesPerSecond ?? 0)),
  };
}

async function publishOnce(bench: BenchContext, variant: Variant): Promise<Ramp> {
  const served = await serveCanvasPublisherPage();
  const context = await bench.browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(served.url);
    await startCanvasPublisher(page, {
      ...bench.product.publishToken(STREAM),
      grain: true,
      withoutFeedback: variant.withoutFeedback,
      holdResolution: variant.holdResolution,
    });
    const samples = await watchCanvasPublisher(page, { maxMs: WATCH_MS });
    console.log(`  ${variant.label}:`);
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
  const runs: Record<keyof typeof VARIANTS, Ramp[]> = {
    without: [],
    with: [],
    chromiumDefault: [],
  };
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const name of ['without', 'with', 'chromiumDefault'] as const) {
      runs[name].push(await publishOnce(bench, VARIANTS[name]));
    }
  }
  const m = (group: Ramp[], pick: (ramp: Ramp) => number) => round(median(group.map(pick)));
  const reached = (group: Ramp[]) =>
    group.map((run) => (run.reachedAt === undefined ? 'never' : `${round(run.reachedAt, 1)} s`));
  const shape = (group: Ramp[]) =>
    `over the last 5 s ${m(group, (run) => run.frameWidth)} px wide at ${m(group, (run) => run.framesPerSecond)} fps, sent ${m(group, (run) => run.sentKbps)} kbit/s, limited by ${group.map((run) => run.reasons).join(', ')}`;
  return [
    {
      part: 'publish',
      what: `Chromium WHIP publisher, grainy 1280x720 canvas held at 720p, loopback: its estimate within ${WATCH_MS / 1000} s (n=${ROUNDS} each)`,
      target: `≥ ${ESTIMATE_KBPS} kbit/s`,
      median: `${m(runs.with, (run) => run.estimateKbps)} kbit/s (without feedback ${m(runs.without, (run) => run.estimateKbps)})`,
      p95: `reached at ${reached(runs.with).join(', ')}`,
      pass: runs.with.every((run) => run.estimateKbps >= ESTIMATE_KBPS),
      note: `${shape(runs.with)}; without feedback ${shape(runs.without)}`,
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
    {
      part: 'publish',
      what: `the same with Chromium's own resolution (its default): estimate and encoder target within ${WATCH_MS / 1000} s`,
      target: '',
      median: `${m(runs.chromiumDefault, (run) => run.estimateKbps)} kbit/s, target ${m(runs.chromiumDefault, (run) => run.targetKbps)} kbit/s`,
      p95: `reached at ${reached(runs.chromiumDefault).join(', ')}`,
      pass: undefined,
      note: shape(runs.chromiumDefault),
    },
  ];
}
