/**
 * The player's figures: 'Watch all' and the live stats overlay (decision 0056).
 *
 * - multiview: a fresh /home, a click on 'Watch all'; for each tile, the time from the click to
 *   its first frame (requestVideoFrameCallback, so the frame is on screen), then its frames shown
 *   a second over 10 s (presentedFrames) in the first five rounds. `--joins` rounds (at least
 *   five), so every tile's p95 has samples behind it (the target: every tile ≤ 300 ms at p95).
 *   Alternating with them, /watch-all opened with no click (the A/B of decision 0057's early
 *   joins).
 * - overlay cost: one player page, the overlay closed and open in alternating 5 s windows (A/B
 *   under the same load), each window's main-thread busy time (CDP Performance.TaskDuration) and
 *   frames shown a second. The stats are read every second either way (the quality indicator
 *   needs them): the difference is the overlay's rendering.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { bundleForPage } from '@tailcam/harness/page-scripts';
import { framesDecodedPerVideo } from '@tailcam/harness/player';
import {
  readJoin,
  readyToWait,
  signedInContext,
  streamCard,
  waitForFirstFrame,
} from '../lib/browser';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { median, p95 } from '@tailcam/harness/stats';
import { round } from '../lib/stats';
import { STREAM_IDS } from '@tailcam/protocol/streams';

const STREAMS = STREAM_IDS;
/** Rounds with the frames-a-second window; the first-frame rounds are `--joins` (at least these). */
const FPS_ROUNDS = 5;
const FPS_WINDOW_MS = 10_000;
const AB_WINDOWS = 8;
const AB_WINDOW_MS = 5_000;
const STEP_NAMES = [
  'ws-created',
  'ws-open',
  'ws-joined',
  'ws-offer',
  'ice-connected',
  'pc-connected',
];

/** Waits (bounded) until every tile has shown its first frame. */
const waitForEveryTile = (page: Page) =>
  page.waitForFunction(
    (count) =>
      Object.values(window.__tiles).filter((tile) => tile.firstFrameAt !== undefined).length ===
      count,
    STREAMS.length,
    { timeout: 20_000 },
  );

const readTiles = (page: Page) => page.evaluate(() => window.__tiles);

/**
 * A fresh /home, then `open` (which returns when, by the page's clock, it opened /watch-all):
 * each tile's first frame after that.
 */
async function tileFirstFrames(
  context: BrowserContext,
  open: (page: Page) => Promise<number>,
): Promise<number[]> {
  const page = await context.newPage();
  try {
    await page.goto('/home');
    await streamCard(page, 'N743AS').waitFor();
    await readyToWait(page);
    const startedAt = await open(page);
    await waitForEveryTile(page);
    const tiles = await readTiles(page);
    return STREAMS.map((streamId) => (tiles[streamId]?.firstFrameAt ?? Number.NaN) - startedAt);
  } finally {
    await page.close();
  }
}

/** /watch-all by the router's own history event, no click: each tile's join starts at its mount. */
const tilesJoinedAtMount = (context: BrowserContext) =>
  tileFirstFrames(context, (page) =>
    page.evaluate(() => {
      const now = performance.now();
      history.pushState(null, '', '/watch-all');
      dispatchEvent(new PopStateEvent('popstate'));
      return now;
    }),
  );

/**
 * A click on 'Watch all' after the pointer rested on the link for `restMs` (a mouse user): the
 * rest fetches the tiles' tokens (decision 0040, amended).
 */
const tilesAfterRestingClick = (context: BrowserContext, restMs: number) =>
  tileFirstFrames(context, async (page) => {
    const link = page.getByRole('link', { name: 'Watch all streams at once' });
    await link.hover();
    await page.waitForTimeout(restMs);
    await link.click();
    return page.evaluate(() => window.__clickAt ?? Number.NaN);
  });

const REST_MS = 150;

/**
 * A click on 'Watch all' after a person's arrival: the pointer moved on the page (away from every
 * link and card) `arrivalMs` before, which joins every stream on standby (decision 0112).
 */
const tilesAfterArrivedClick = (context: BrowserContext, arrivalMs: number) =>
  tileFirstFrames(context, async (page) => {
    await page.mouse.move(2, 300);
    await page.waitForTimeout(arrivalMs);
    await page.getByRole('link', { name: 'Watch all streams at once' }).click();
    return page.evaluate(() => window.__clickAt ?? Number.NaN);
  });

const ARRIVAL_MS = 1_000;

async function multiview(bench: BenchContext): Promise<BenchRow[]> {
  const rounds = Math.max(FPS_ROUNDS, bench.options.joins);
  const context = await signedInContext(bench);
  await context.addInitScript({ content: await bundleForPage('bench/page/tile-probe.ts') });
  const joins: Record<string, number[]> = {};
  const fps: Record<string, number[]> = {};
  // The frame rate of the layer each tile played, as the stage received it, and its width.
  const layerFps: Record<string, number[]> = {};
  const widths: Record<string, number[]> = {};
  // The B side of the A/B: each round's three first frames when the joins start at the tiles' mount.
  const mounted: number[][] = [];
  // Each round's three first frames after a click the pointer rested REST_MS before.
  const rested: number[][] = [];
  // Each round's three first frames after a click a person's arrival ARRIVAL_MS before.
  const arrived: number[][] = [];
  // Each tile's <video> in the page, its stream given, its first frame's arrival: ms after the click.
  const tileSteps: Record<'mounted' | 'source' | 'received', number[]> = {
    mounted: [],
    source: [],
    received: [],
  };
  // Each step of the three joins (the page probe's marks), by order of arrival: [first, second, third].
  const steps: Record<string, number[][]> = {};
  try {
    for (let round = 0; round < rounds; round += 1) {
      const page = await context.newPage();
      await page.goto('/home');
      await readyToWait(page);
      await page.getByRole('link', { name: 'Watch all streams at once' }).click();
      await waitForEveryTile(page);
      await page.waitForTimeout(2_000); // past the start-up frames
      const clickAt = await page.evaluate(() => window.__clickAt ?? Number.NaN);
      const { marks } = await readJoin(page);
      for (const name of STEP_NAMES) {
        const times = marks.filter((m) => m.name === name).map((m) => m.at - clickAt);
        times.forEach((time, index) => ((steps[name] ??= [])[index] ??= []).push(time));
      }
      const before = await readTiles(page);
      const started = Date.now();
      if (round < FPS_ROUNDS) await page.waitForTimeout(FPS_WINDOW_MS);
      const after = await readTiles(page);
      const seconds = (Date.now() - started) / 1000;
      const stats = round < FPS_ROUNDS ? await bench.product.stage.stats() : undefined;
      for (const streamId of STREAMS) {
        const tile = after[streamId];
        (joins[streamId] ??= []).push((tile?.firstFrameAt ?? Number.NaN) - clickAt);
        tileSteps.mounted.push((tile?.mountedAt ?? Number.NaN) - clickAt);
        tileSteps.source.push((tile?.sourceAt ?? Number.NaN) - clickAt);
        tileSteps.received.push((tile?.firstFrameReceivedAt ?? Number.NaN) - clickAt);
        const shown = (tile?.presented ?? 0) - (before[streamId]?.presented ?? 0);
        if (round < FPS_ROUNDS) {
          (fps[streamId] ??= []).push(shown / seconds);
          // The layer the tile plays (by its frames' width), as the stage received it.
          const layer = stats?.stages[streamId]?.publisher?.layers.find(
            (each) => each.width === tile?.width,
          );
          (layerFps[streamId] ??= []).push(layer?.frameRate ?? Number.NaN);
          (widths[streamId] ??= []).push(tile?.width ?? 0);
        }
      }
      await page.close();
      mounted.push(await tilesJoinedAtMount(context));
      rested.push(await tilesAfterRestingClick(context, REST_MS));
      arrived.push(await tilesAfterArrivedClick(context, ARRIVAL_MS));
    }
  } finally {
    await context.close();
  }
  const stepNote =
    STEP_NAMES.map(
      (name) => `${name} ${(steps[name] ?? []).map((times) => round(median(times))).join('/')}`,
    ).join(', ') +
    `; every tile's video in the page ${round(median(tileSteps.mounted))}, given its stream ` +
    `${round(median(tileSteps.source))}, its first frame arrived ${round(median(tileSteps.received))}`;
  const clicked = STREAMS.flatMap((streamId) => joins[streamId] ?? []);
  const atMount = mounted.flat();
  const abRow: BenchRow = {
    part: 'player',
    what: `Watch all, every tile's first frame: joins started by the click / at the tiles' mount (A/B, ${rounds} rounds each)`,
    target: 'p95 ≤ 300 ms, every tile',
    median: `${round(median(clicked))} / ${round(median(atMount))} ms`,
    p95: `p95 ${round(p95(clicked))} / ${round(p95(atMount))} ms; max ${round(Math.max(...clicked))} / ${round(Math.max(...atMount))}`,
    pass: STREAMS.every((streamId) => p95(joins[streamId] ?? []) <= 300),
    note:
      "the click's side is the product (decision 0057); the mount side opens /watch-all by the " +
      "router's history (popstate) so no click starts the joins, as before that decision",
  };
  const afterRest = rested.flat();
  const restRow: BenchRow = {
    part: 'player',
    what: `Watch all, every tile's first frame after a click the pointer rested on the link ${REST_MS} ms before (${rounds} rounds)`,
    target: 'p95 ≤ 300 ms, every tile',
    median: `${round(median(afterRest))} ms`,
    p95: `p95 ${round(p95(afterRest))} ms; max ${round(Math.max(...afterRest))}`,
    pass: p95(afterRest) <= 300,
    note: "a mouse user's click: the rest fetched the three tiles' tokens (decision 0040, amended)",
  };
  const afterArrival = arrived.flat();
  const arrivalRow: BenchRow = {
    part: 'player',
    what: `Watch all, every tile's first frame after an instant click, the pointer moved on the page ${ARRIVAL_MS} ms before (${rounds} rounds)`,
    target: 'p95 ≤ 300 ms, every tile',
    median: `${round(median(afterArrival))} ms`,
    p95: `p95 ${round(p95(afterArrival))} ms; max ${round(Math.max(...afterArrival))}`,
    pass: p95(afterArrival) <= 300,
    note: "a person's arrival on /home joined every stream on standby (decision 0112); the click showed them",
  };
  return [
    abRow,
    arrivalRow,
    restRow,
    ...STREAMS.map((streamId) => {
      const join = median(joins[streamId] ?? []);
      const rate = median(fps[streamId] ?? []);
      const layerRate = median(layerFps[streamId] ?? []);
      return {
        part: 'player',
        what: `Watch all, tile ${streamId}: frames shown a second (3 tiles at once; n=${FPS_ROUNDS} rounds), against its layer's`,
        target: "≥ 95 % of its layer's",
        median: `${round(rate, 1)} / ${round(layerRate, 1)} fps`,
        p95: `first frame p95 ${round(p95(joins[streamId] ?? []))} ms`,
        pass: rate >= 0.95 * layerRate,
        note:
          // A tile asks for the layer that fits its width (docs/product.md#watch-all); with the
          // simulcast cameras that is often the middle one, 20 fps by IVS's pattern.
          `the tile's layer ${median(widths[streamId] ?? [])} px wide; ` +
          `click on 'Watch all' on /home → this tile's first frame: ${round(join)} ms median, p95 ${round(p95(joins[streamId] ?? []))} ` +
          `(${(joins[streamId] ?? []).map((value) => round(value)).join(', ')}); the three joins' ` +
          `steps, first/second/third to get there, median ms after the click: ${stepNote}`,
      };
    }),
  ];
}

async function overlayCost(bench: BenchContext): Promise<BenchRow[]> {
  const context = await signedInContext(bench);
  const busy: Record<'closed' | 'open', number[]> = { closed: [], open: [] };
  const shown: Record<'closed' | 'open', number[]> = { closed: [], open: [] };
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const taskSeconds = async () => {
      const { metrics } = await cdp.send('Performance.getMetrics');
      return metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0;
    };
    const presented = async () => (await framesDecodedPerVideo(page))[0] ?? 0;
    await page.goto('/player/N743AS');
    await page.evaluate(() => {
      (window as unknown as { __bench: { clickAt: number } }).__bench.clickAt = 0;
    });
    await waitForFirstFrame(page);
    await page.waitForTimeout(2_000);
    let open = false;
    for (let window = 0; window < AB_WINDOWS; window += 1) {
      const taskStart = await taskSeconds();
      const framesStart = await presented();
      const started = Date.now();
      await page.waitForTimeout(AB_WINDOW_MS);
      const seconds = (Date.now() - started) / 1000;
      const side = open ? 'open' : 'closed';
      busy[side].push((((await taskSeconds()) - taskStart) / seconds) * 100);
      shown[side].push(((await presented()) - framesStart) / seconds);
      await page.keyboard.press('i');
      open = !open;
    }
  } finally {
    await context.close();
  }
  const closed = median(busy.closed);
  const opened = median(busy.open);
  return [
    {
      part: 'player',
      what: `live stats overlay: the page's main thread busy, open vs closed (A/B, ${AB_WINDOWS} × ${AB_WINDOW_MS / 1000} s)`,
      target: '(report the difference)',
      median: `${round(opened - closed, 2)} points`,
      p95: '',
      pass: undefined,
      note:
        `closed ${round(closed, 2)} % of a core, open ${round(opened, 2)} %; ` +
        `decoded a second closed ${round(median(shown.closed), 1)}, open ${round(median(shown.open), 1)}`,
    },
  ];
}

export async function runPlayer(bench: BenchContext): Promise<BenchRow[]> {
  return [...(await multiview(bench)), ...(await overlayCost(bench))];
}
