/**
 * Reconnect: the stage cuts a playing viewer (`POST /_faults/drop {stageId}`: socket and peer
 * connection, no goodbye, as a network loss) → the player's video presents a frame of the new
 * subscription. Measured from just before the drop request (wall clock, Node) to that frame's
 * requestVideoFrameCallback (page clock mapped onto the wall clock).
 */
import type { Page } from '@playwright/test';
import { framesPresented, signedInContext, waitForFirstFrame } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { median, p95 } from '@tailcam/harness/stats';
import { round } from '../lib/stats';

interface Probe {
  __bench: { sourceAt?: number; firstFrameAfterSource?: number; clickAt?: number };
  __benchWall: (pageTime: number) => number;
}

async function waitPlaying(page: Page): Promise<void> {
  const before = await framesPresented(page);
  await page.waitForFunction(
    (count) => (window as unknown as { __bench: { frames: number } }).__bench.frames > count + 10,
    before,
    { timeout: 20_000 },
  );
}

export async function runReconnect(bench: BenchContext): Promise<BenchRow[]> {
  const context = await signedInContext(bench);
  const durations: number[] = [];
  let failures = 0;
  try {
    const page = await context.newPage();
    await page.goto('/player/N953AS');
    await page.evaluate(() => {
      (window as unknown as Probe).__bench.clickAt = 0;
    });
    await waitForFirstFrame(page);
    for (let round = 0; round < bench.options.reconnects; round += 1) {
      await waitPlaying(page);
      await page.evaluate(() => {
        const probe = (window as unknown as Probe).__bench;
        probe.sourceAt = undefined;
        probe.firstFrameAfterSource = undefined;
      });
      const droppedAt = Date.now();
      const { dropped } = await bench.product.stage.drop({ stageId: 'N953AS' });
      if (dropped === 0) throw new Error('the drop reached no viewer');
      try {
        await page.waitForFunction(
          () => (window as unknown as Probe).__bench.firstFrameAfterSource !== undefined,
          undefined,
          { timeout: 20_000 },
        );
        const playingAt = await page.evaluate(() => {
          const probe = window as unknown as Probe;
          return probe.__benchWall(probe.__bench.firstFrameAfterSource ?? Number.NaN);
        });
        durations.push(playingAt - droppedAt);
      } catch {
        failures += 1;
      }
    }
  } finally {
    await context.close();
  }
  const worst = Math.max(...durations);
  return [
    {
      part: 'reconnect',
      what: `forced drop → video presented again (n=${durations.length})`,
      target: '≤ 2 s',
      median: `${round(median(durations))} ms`,
      p95: `${round(p95(durations))} ms`,
      pass: failures === 0 && durations.length > 0 && p95(durations) <= 2_000,
      note: `worst ${round(worst)} ms${failures ? `; ${failures} never played again within 20 s` : ''}; pass = every round (p95) within 2 s`,
    },
  ];
}
