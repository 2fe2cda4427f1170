/**
 * What a Prometheus scrape costs (docs/benchmarks.md, Metrics; decision 0097): the API's and the
 * stage's CPU per `GET /metrics` (the API's figures, then the stage's from its loopback
 * `/_control/metrics`), with no viewer and with 100 receive-only viewers of N743AS (real WebRTC
 * sessions in Chromium, bench/lib/receive-only-viewers.ts). Each level: three pairs of windows,
 * the two processes' CPU over one without scrapes, then over one of scrapes back to back (8 at
 * once); a scrape's cost is the second window's CPU less the first's rate, shared among its
 * scrapes, the median of the pairs (with 100 viewers the stage forwards on a core, and a window's
 * CPU varies). At Prometheus's default of one scrape every 15 s, that cost a second is the share
 * of a core the metrics take.
 */
import type { BenchContext } from '../lib/context';
import { addViewers } from '../lib/receive-only-viewers';
import type { BenchRow } from '../lib/result';
import { cpuSecondsOf, round } from '../lib/stats';
import { loadAverage } from '@tailcam/harness/load-average';
import { median, p95 } from '@tailcam/harness/stats';
import { stageControl } from '@tailcam/harness/stage-control';
import { Comparison, sleep, waitForQuiet } from './janus-comparison';

const VIEWERS = 100;
const VIEWERS_PER_PAGE = 25;
/** Each level: this many pairs of windows (without scrapes, with), each window this long. */
const PAIRS = 3;
const WINDOW_MS = 8_000;
/** Scrapes at once in a window (Prometheus sends one at a time: the cost is the same a scrape). */
const IN_FLIGHT = 8;
const SETTLE_MS = 3_000;

interface ScrapeCost {
  viewers: number;
  scrapes: number;
  /** CPU ms per scrape, the API's and the stage's together, and each. */
  cpuMs: number;
  /** The lowest and highest of the pairs' figures. */
  cpuRangeMs: [number, number];
  apiCpuMs: number;
  stageCpuMs: number;
  /** Each scrape's time to its whole answer, ms. */
  durations: number[];
  bytes: number;
  load: string;
}

function cpuOf(pids: { api: number; stage: number }) {
  return { api: cpuSecondsOf(pids.api) ?? 0, stage: cpuSecondsOf(pids.stage) ?? 0 };
}

/** One pair of windows: without scrapes, then scrapes back to back; CPU ms a scrape. */
async function measurePair(url: string, pids: { api: number; stage: number }) {
  // Without scrapes: the processes' own work (forwarding to the viewers).
  const idleStart = cpuOf(pids);
  const idleStarted = performance.now();
  await sleep(WINDOW_MS);
  const idleEnd = cpuOf(pids);
  const idleSeconds = (performance.now() - idleStarted) / 1000;
  const idleRate = {
    api: (idleEnd.api - idleStart.api) / idleSeconds,
    stage: (idleEnd.stage - idleStart.stage) / idleSeconds,
  };
  const durations: number[] = [];
  let bytes = 0;
  const start = cpuOf(pids);
  const started = performance.now();
  // A few scrapes in flight: with 100 viewers the stage answers between its packets, and more
  // scrapes a window share its CPU's variation among more of them.
  const scraper = async () => {
    while (performance.now() - started < WINDOW_MS) {
      const begun = performance.now();
      const response = await fetch(url);
      if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
      const text = await response.text();
      if (!text.includes('tailcam_stage_up 1'))
        throw new Error('the stage did not answer a scrape');
      durations.push(performance.now() - begun);
      bytes = text.length;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, scraper));
  const end = cpuOf(pids);
  const seconds = (performance.now() - started) / 1000;
  return {
    apiMs: ((end.api - start.api - idleRate.api * seconds) * 1000) / durations.length,
    stageMs: ((end.stage - start.stage - idleRate.stage * seconds) * 1000) / durations.length,
    durations,
    bytes,
  };
}

async function measure(
  url: string,
  pids: { api: number; stage: number },
  viewers: number,
): Promise<ScrapeCost> {
  const pairs = [];
  for (let pair = 0; pair < PAIRS; pair += 1) pairs.push(await measurePair(url, pids));
  const api = median(pairs.map((pair) => pair.apiMs));
  const stage = median(pairs.map((pair) => pair.stageMs));
  const totals = pairs.map((pair) => pair.apiMs + pair.stageMs);
  return {
    viewers,
    scrapes: pairs.reduce((sum, pair) => sum + pair.durations.length, 0),
    cpuMs: median(totals),
    cpuRangeMs: [Math.min(...totals), Math.max(...totals)],
    apiCpuMs: api,
    stageCpuMs: stage,
    durations: pairs.flatMap((pair) => pair.durations),
    bytes: pairs.at(-1)?.bytes ?? 0,
    load: loadAverage(),
  };
}

function row(cost: ScrapeCost): BenchRow {
  return {
    part: 'metrics',
    what: `CPU a scrape of GET /metrics, API + stage, ${cost.viewers} receive-only viewers of N743AS`,
    target: 'informative',
    median: `${round(cost.cpuMs, 2)} ms CPU (API ${round(cost.apiCpuMs, 2)}, stage ${round(cost.stageCpuMs, 2)})`,
    p95: `answer ${round(median(cost.durations), 1)} ms median, ${round(p95(cost.durations), 1)} p95`,
    pass: undefined,
    note:
      `median of ${PAIRS} pairs of ${WINDOW_MS / 1000} s windows (${round(cost.cpuRangeMs[0], 2)}–${round(cost.cpuRangeMs[1], 2)} ms); ` +
      `${cost.scrapes} scrapes, ${IN_FLIGHT} at once, ${cost.bytes} bytes each; ` +
      `one scrape every 15 s is ${round((cost.cpuMs / 15_000) * 100, 4)} % of a core; load ${cost.load}`,
  };
}

export async function runMetrics(bench: BenchContext): Promise<BenchRow[]> {
  const port = bench.product.env.METRICS_PORT;
  if (port === undefined || port === '0') throw new Error('the bench product has no METRICS_PORT');
  const url = `http://127.0.0.1:${port}/metrics`;
  const api = bench.product.apiPid();
  const stage = bench.product.stagePid();
  if (api === undefined || stage === undefined) throw new Error('no API or stage process');
  const pids = { api, stage };

  await waitForQuiet('metrics');
  const rows = [row(await measure(url, pids, 0))];
  console.log(`  metrics: ${rows[0]!.median} with no viewer`);

  const comparison = new Comparison(bench);
  await comparison.pages.start(bench.product.baseUrl);
  try {
    const context = await comparison.context(true);
    try {
      for (let opened = 0; opened < VIEWERS; opened += VIEWERS_PER_PAGE) {
        const page = await comparison.peerPage(context, 'ours');
        await addViewers(page, comparison.target('ours'), VIEWERS_PER_PAGE);
      }
      await sleep(SETTLE_MS);
      const stats = await stageControl(bench.product.stageUrl).stats();
      const watching = stats.stages.N743AS?.publisher?.viewers ?? 0;
      if (watching < VIEWERS) throw new Error(`only ${watching} viewers reached the stage`);
      const crowded = await measure(url, pids, VIEWERS);
      rows.push(row(crowded));
      console.log(`  metrics: ${rows[1]!.median} with ${VIEWERS} viewers`);
    } finally {
      await context.close();
    }
  } finally {
    await comparison.pages.stop();
  }
  return rows;
}
