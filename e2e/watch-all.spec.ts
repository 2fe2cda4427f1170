/**
 * 'Watch all' (docs/product.md#watch-all) in Chromium against the real product: every aircraft
 * plays at once, each tile its own aircraft (read from its pixels) and its own session on the
 * stage; a tile opens its player, by pointer and by keyboard; a player in another tab still joins
 * beside it; axe-core is clean.
 */
import type { Locator, Page } from '@playwright/test';
import { installPageKit } from '@tailcam/harness/page-scripts';
import { framesDecoded as framesOf } from '@tailcam/harness/player';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import {
  expect,
  expectNoSeriousAxeFindings,
  expectVideoPlaying,
  signInByApi,
  test,
} from './support/fixtures';
import { localStage } from './support/local-stage';

function tileVideo(page: Page, streamId: string): Locator {
  return page.getByLabel(`Live video from ${streamId}`);
}

/** Which aircraft the frame a tile shows comes from, read from its time strip. */
async function aircraftIn(page: Page, video: Locator): Promise<string | undefined> {
  await installPageKit(page);
  const index = await video.evaluate(
    (element: HTMLVideoElement) => window.TailcamPageKit.frameStamp(element)?.streamIndex ?? null,
  );
  return index === null ? undefined : STREAM_IDS[index];
}

test.describe('Watch all', () => {
  test.beforeEach(async ({ page }) => {
    await signInByApi(page);
  });

  test('plays every aircraft at once, each tile its own aircraft and its own stage session', async ({
    page,
  }) => {
    await page.goto('/home');
    await page.getByRole('link', { name: 'Watch all streams at once' }).click();
    await expect(page).toHaveURL(/\/watch-all$/);
    await expect(page).toHaveTitle('Watch all · Tailcam');

    for (const streamId of STREAM_IDS) {
      const video = tileVideo(page, streamId);
      await expect.poll(() => framesOf(video), { timeout: 20_000 }).toBeGreaterThan(10);
      const before = await framesOf(video);
      await expect.poll(() => framesOf(video)).toBeGreaterThan(before + 5);
      await expect.poll(() => aircraftIn(page, video)).toBe(streamId);
      expect(await video.evaluate((element: HTMLVideoElement) => element.muted)).toBe(true);
      await expect(page.getByRole('link', { name: `${streamId}: Open player` })).toContainText(
        streamId,
      );
    }
    const stats = await localStage.stats();
    for (const streamId of STREAM_IDS) {
      expect(stats.stages[streamId]?.peerConnections, `${streamId}'s viewers`).toBe(1);
    }
    await expect(page.getByRole('img', { name: /^Connection quality: / })).toHaveCount(3);
  });

  test('each tile asks for the layer that fits it: 320x180 in a tile under 640 px wide', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/watch-all');
    const pictureWidth = (video: Locator) =>
      video.evaluate((element: HTMLVideoElement) => element.videoWidth);
    for (const streamId of STREAM_IDS) {
      const video = tileVideo(page, streamId);
      const box = await video.boundingBox();
      expect(box?.width, `${streamId}'s tile at 1280 px`).toBeLessThan(640);
      expect(box?.width).toBeGreaterThanOrEqual(320);
      await expect.poll(() => pictureWidth(video), { timeout: 20_000 }).toBe(320);
    }
  });

  test('a tile opens its player; a player in another tab joins beside the multi-view', async ({
    page,
    context,
  }) => {
    await page.goto('/watch-all');
    for (const streamId of STREAM_IDS) {
      await expect
        .poll(() => framesOf(tileVideo(page, streamId)), { timeout: 20_000 })
        .toBeGreaterThan(5);
    }

    const second = await context.newPage();
    await second.goto('/player/N953AS');
    await expectVideoPlaying(second);
    await expect
      .poll(async () => (await localStage.stats()).stages.N953AS?.peerConnections)
      .toBe(2);
    await second.close();

    await page.getByRole('link', { name: 'N953AS: Open player' }).click();
    await expect(page).toHaveURL(/\/player\/N953AS$/);
    // The tiles go once the player's page is there (its chunk may still be on its way as the URL
    // changes): one live video left.
    await expect(page.getByLabel(/^Live video from /)).toHaveCount(1);
    await expectVideoPlaying(page);
    // The other tiles' sessions were left with the page.
    await expect
      .poll(async () => {
        const stats = await localStage.stats();
        return STREAM_IDS.map((streamId) => stats.stages[streamId]?.peerConnections);
      })
      .toEqual([0, 1, 0]);
  });

  test('is used from the keyboard alone, and axe-core finds nothing serious', async ({ page }) => {
    await page.goto('/watch-all');
    await expect
      .poll(() => framesOf(tileVideo(page, 'N743AS')), { timeout: 20_000 })
      .toBeGreaterThan(5);
    await expectNoSeriousAxeFindings(page, 'watch all');

    // Tab goes through the header, the back link, then one stop per tile, in order.
    const reached: string[] = [];
    for (let presses = 0; presses < 10 && reached.length < 3; presses += 1) {
      await page.keyboard.press('Tab');
      const name = await page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
      if (name?.endsWith(': Open player')) reached.push(name);
    }
    expect(reached).toEqual(STREAM_IDS.map((streamId) => `${streamId}: Open player`));
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/player\/N954AS$/);
  });
});
