/**
 * 300 join/leave cycles through the app: click a card, wait for the first frame, back to the
 * grid (the player unmounts and leaves the stage). Afterwards the stage must hold no peer
 * connection and no socket, and its RSS (after the warm-up cycles: encoders, pools) must stay
 * within 20 %. Both readings are taken with the cameras idle again, so they compare like with
 * like. The page's own peer connections (opened − closed) are counted too.
 */
import type { Page } from '@playwright/test';
import type { StageStats } from '@tailcam/harness/stage-control';
import { signedInContext, streamCard, waitForFirstFrame } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';

const STREAMS = ['N743AS', 'N953AS', 'N954AS'];

/** Bounded: cameras stop STAGE_CAMERA_IDLE_MS (5 s) after their last viewer. */
async function camerasIdle(bench: BenchContext): Promise<StageStats> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const stats = await bench.product.stage.idle();
    const live = Object.values(stats.stages).some((entry) => entry.camera.state === 'live');
    if (!live || Date.now() > deadline) return stats;
    await new Promise((done) => setTimeout(done, 250));
  }
}

const mb = (bytes: number) => round(bytes / 2 ** 20, 1);

export async function runCycles(bench: BenchContext): Promise<BenchRow[]> {
  const cycles = bench.options.cycles;
  const warmUp = Math.min(30, Math.floor(cycles / 10));
  const context = await signedInContext(bench);
  let page: Page | undefined;
  let warm: StageStats | undefined;
  const start = await camerasIdle(bench);
  let pagePeers: { opened: number; closed: number } | undefined;
  try {
    page = await context.newPage();
    await page.goto('/home');
    for (let cycle = 0; cycle < cycles; cycle += 1) {
      await streamCard(page, STREAMS[cycle % 3] ?? 'N743AS').click();
      await waitForFirstFrame(page);
      await page.getByRole('link', { name: /^Back/ }).click();
      await streamCard(page, 'N743AS').waitFor();
      if (cycle === warmUp - 1) {
        warm = await camerasIdle(bench);
      }
    }
    pagePeers = await page.evaluate(
      () =>
        (window as unknown as { __bench: { peers: { opened: number; closed: number } } }).__bench
          .peers,
    );
  } finally {
    await context.close();
  }
  const afterLeave = await bench.product.stage.idle();
  const end = await camerasIdle(bench);
  const base = warm ?? start;
  const growth = (end.process.rssBytes - base.process.rssBytes) / base.process.rssBytes;
  const growthFromStart = (end.process.rssBytes - start.process.rssBytes) / start.process.rssBytes;
  return [
    {
      part: 'cycles',
      what: `${cycles} join/leave cycles: peer connections left on the stage`,
      target: '0',
      median: `${afterLeave.peerConnections}`,
      p95: '–',
      pass: afterLeave.peerConnections === 0 && afterLeave.sockets === 0,
      note: `sockets left ${afterLeave.sockets}; the page opened ${pagePeers?.opened} peer connections and closed ${pagePeers?.closed}`,
    },
    {
      part: 'cycles',
      what: `${cycles} join/leave cycles: stage RSS growth`,
      target: 'within 20 %',
      median: `${round(growth * 100, 1)} %`,
      p95: '–',
      pass: Math.abs(growth) <= 0.2,
      note: `RSS ${mb(start.process.rssBytes)} MB at start, ${mb(base.process.rssBytes)} MB after ${warmUp} warm-up cycles, ${mb(end.process.rssBytes)} MB at the end (${round(growthFromStart * 100, 1)} % from the start)`,
    },
  ];
}
