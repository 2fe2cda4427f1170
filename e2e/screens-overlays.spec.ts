/**
 * Watch all and the player's loading and error overlays at the three widths, checked with
 * axe-core and saved as screenshots (e2e/support/screens.ts); the other screens are
 * screens.spec.ts. On the shared product: split from screens.spec.ts's instance so that the two
 * lanes end together (docs/development.md).
 */
import { framesDecoded } from '@tailcam/harness/player';
import { expect, signInByApi, test } from './support/fixtures';
import { atEveryWidth } from './support/screens';

test.describe('every screen at 375, 768 and 1280 px', () => {
  test('watch all', async ({ page }) => {
    await signInByApi(page);
    await page.goto('/watch-all');
    for (const streamId of ['N743AS', 'N953AS', 'N954AS']) {
      await expect
        .poll(() => framesDecoded(page.getByLabel(`Live video from ${streamId}`)))
        .toBeGreaterThan(5);
    }
    await expect(page.getByRole('img', { name: /^Connection quality: / })).toHaveCount(3);
    await atEveryWidth(page, 'watch-all', { fullPage: true });
  });

  test('the loading overlay', async ({ page }) => {
    await signInByApi(page);
    await page.route('**/api/token', () => undefined); // never answered: loading stays
    await page.goto('/player/N743AS');
    await expect(page.getByText('Connecting to stream...')).toBeVisible();
    await expect(page.getByText('This may take a few moments')).toBeVisible();
    await atEveryWidth(page, 'player-loading');
  });

  test('the error overlay (a proxy answering a bare 502, simulated in the browser)', async ({
    page,
  }) => {
    await signInByApi(page);
    await page.route('**/api/token', (route) => route.fulfill({ status: 502, body: '' }));
    await page.goto('/player/N743AS');
    await expect(page.getByRole('alert')).toContainText('Stream Unavailable');
    await expect(page.getByRole('alert')).toContainText('Failed to fetch participant token');
    await atEveryWidth(page, 'player-error');
  });
});
