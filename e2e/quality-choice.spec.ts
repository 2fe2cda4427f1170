/**
 * The player's quality choice (decision 0068, docs/product.md#quality), in Chromium against the
 * real product: the synthetic camera sends three layers; choosing '90p' by keyboard brings the
 * picture down to 160x90 (the video's own size, `videoWidth`), 'Auto' back to 640x360; each choice
 * is announced, the stats say which layer comes and the stage's estimate, and axe-core stays clean.
 */
import type { Page } from '@playwright/test';
import {
  expect,
  expectNoSeriousAxeFindings,
  expectVideoPlaying,
  recordAnnouncements,
  signInByApi,
  test,
} from './support/fixtures';

const pictureWidth = (page: Page) =>
  page.locator('video').evaluate((video: HTMLVideoElement) => video.videoWidth);

test.describe('the quality choice', () => {
  test.beforeEach(async ({ page }) => {
    await signInByApi(page);
  });

  test("switches the picture to 160x90 with '90p' and back to 640x360 with 'Auto', by keyboard", async ({
    page,
  }) => {
    test.setTimeout(90_000);
    // Each choice is announced in the player's polite region, which the HUD's phase of flight
    // may take over a moment later: what it said, in order.
    const announced = await recordAnnouncements(page);
    await page.goto('/player/N743AS');
    await expectVideoPlaying(page);
    const choice = page.getByRole('combobox', { name: 'Quality' });
    await expect(choice).toBeVisible({ timeout: 10_000 });
    await expect(choice.getByRole('option')).toHaveText(['Auto (360p)', '360p', '180p', '90p']);
    await expect.poll(() => pictureWidth(page), { timeout: 30_000 }).toBe(640);
    await expectNoSeriousAxeFindings(page, 'player with the quality choice');

    // Tab to the select (from the video's controls on), then choose with the arrow keys.
    await choice.focus();
    await expect(choice).toBeFocused();
    await page.keyboard.press('End');
    await expect(choice).toHaveValue('q');
    await expect.poll(announced).toContain('Quality: 90p');
    await expect.poll(() => pictureWidth(page), { timeout: 10_000 }).toBe(160);

    // (The shortcut keys are the select's own while it has focus.)
    await page.getByRole('button', { name: 'Live stats' }).press('Enter');
    const stats = page.getByRole('region', { name: 'Live stats' });
    await expect(stats).toContainText('160 × 90 (q), chosen', { timeout: 10_000 });
    // The stage's estimate of this viewer (Chromium's own REMB, told through the local SDK).
    await expect(stats).toContainText(/Estimate\d+\.\d Mbit\/s/, { timeout: 10_000 });

    await choice.focus();
    await page.keyboard.press('Home');
    await expect(choice).toHaveValue('auto');
    await expect.poll(announced).toContain('Quality: Auto');
    // Up from 90p is probe by probe, a layer at a time (decision 0069): 4–8 s on a quiet machine,
    // and a probe that a loaded machine's jitter fails waits 8 s before the next.
    const autoAt = Date.now();
    await expect.poll(() => pictureWidth(page), { timeout: 30_000 }).toBe(640);
    console.log(`'Auto' after '90p': 640x360 again ${Date.now() - autoAt} ms later`);
    await expect(stats).toContainText('640 × 360 (f), auto', { timeout: 10_000 });
  });
});
