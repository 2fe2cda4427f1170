/**
 * Every screen and overlay at the three widths: saved as screenshots (e2e/.artifacts/screenshots,
 * the best are copied into docs/) and checked with axe-core for serious or critical findings at
 * each width. One page per screen, resized from width to width: a new page per width would only
 * sign in and join again. The sign-in page, the stream selection and the player here, on an
 * instance of its own, in the lane beside the shared product's specs (it counts no viewers of
 * theirs); Watch all and the player's overlays in screens-overlays.spec.ts, on the shared product:
 * the two lanes' times (docs/development.md).
 */
import type { Page } from '@playwright/test';
import { Product } from '@tailcam/harness/product';
import { signIn } from '@tailcam/harness/sign-in';
import { ownInstance } from './support/environment';
import { expect, expectVideoPlaying, test } from './support/fixtures';
import { atEveryWidth } from './support/screens';

const INSTANCE = ownInstance('screens', 800);
const VIEWER = { username: 'screens-viewer', password: 'screens viewer password 1' };
let product: Product | undefined;
let loginToken = '';

test.use({ baseURL: `http://127.0.0.1:${INSTANCE.port}` });

test.beforeAll(async () => {
  test.setTimeout(90_000);
  product = new Product(INSTANCE);
  product.addViewer(VIEWER);
  await product.start();
  loginToken = await product.loginToken(VIEWER);
});

test.afterAll(async () => {
  await product?.dispose();
});

/** Signs the page in on this spec's instance. */
function signInByApi(page: Page): Promise<void> {
  return signIn(page, loginToken);
}

test.describe('every screen at 375, 768 and 1280 px', () => {
  test('the sign-in page', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
    await atEveryWidth(page, 'sign-in');
  });

  test('the stream selection page', async ({ page }) => {
    await signInByApi(page);
    await page.goto('/home');
    await expect(page.getByRole('link', { name: /N954AS/ })).toBeVisible();
    // Each card with its aircraft's picture, not the placeholder.
    await expect(page.getByRole('img', { name: / thumbnail$/ })).toHaveCount(3, {
      timeout: 15_000,
    });
    await atEveryWidth(page, 'home', { fullPage: true });
  });

  test('the player with live video, then with the live stats open', async ({ page }) => {
    await signInByApi(page);
    await page.goto('/player/N743AS');
    await expectVideoPlaying(page);
    // The camera sends three layers: the 'Quality' select is part of the player's controls.
    await expect(page.getByRole('combobox', { name: 'Quality' })).toBeVisible();
    // The aircraft's flight data over the picture (docs/product.md#flight-data).
    await expect(page.getByTestId('flight-hud')).toBeVisible({ timeout: 10_000 });
    await atEveryWidth(page, 'player');

    await page.keyboard.press('i');
    const latency = page
      .getByRole('region', { name: 'Live stats' })
      .locator('dt', { hasText: /^Glass to glass/ })
      .locator('xpath=following-sibling::dd[1]');
    await expect(latency).toHaveText(/ ms$/);
    // The layer the stage chose for this link: the top one on a quiet machine, a lower one on a
    // loaded one (the adaptation, decision 0069).
    await expect(page.getByRole('region', { name: 'Live stats' })).toContainText(
      /\d+ × \d+ \((q|h|f)\), auto/,
    );
    await expect(page.getByRole('img', { name: /^Connection quality: / })).toBeVisible();
    // On a phone the stats go below the picture, which stays whole; from 640 px they lie over it.
    const stats = page.getByRole('region', { name: 'Live stats' });
    const video = page.getByLabel('Live video from N743AS');
    await atEveryWidth(page, 'player-stats', {
      ready: async () => {
        const [panel, picture] = [await stats.boundingBox(), await video.boundingBox()];
        if (!panel || !picture) throw new Error('the stats or the video has no box');
        const below = panel.y >= picture.y + picture.height;
        expect(below, `stats below the video at ${page.viewportSize()?.width} px`).toBe(
          (page.viewportSize()?.width ?? 0) < 640,
        );
      },
    });
  });
});
