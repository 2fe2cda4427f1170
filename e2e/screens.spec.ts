/**
 * Every screen and overlay at the three widths: saved as screenshots (e2e/.artifacts/screenshots,
 * the best are copied into docs/) and checked with axe-core for serious or critical findings.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, expectVideoPlaying, signInByApi, test } from './support/fixtures';

const WIDTHS = [375, 768, 1280] as const;
const SHOTS = 'e2e/.artifacts/screenshots';

async function expectNoSeriousAxeFindings(page: Page, screen: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.length} nodes)`);
  expect(serious, `axe findings on ${screen}`).toEqual([]);
}

for (const width of WIDTHS) {
  test.describe(`at ${width} px`, () => {
    test.beforeEach(async ({ page }) => {
      await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    });

    test('the sign-in page', async ({ page }) => {
      await page.goto('/');
      await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
      await expectNoSeriousAxeFindings(page, 'sign-in');
      await page.screenshot({ path: `${SHOTS}/sign-in-${width}.png` });
    });

    test('the stream selection page', async ({ page }) => {
      await signInByApi(page);
      await page.goto('/home');
      await expect(page.getByRole('link', { name: /N954AS/ })).toBeVisible();
      await expectNoSeriousAxeFindings(page, 'home');
      await page.screenshot({ path: `${SHOTS}/home-${width}.png`, fullPage: true });
    });

    test('the player with live video', async ({ page }) => {
      await signInByApi(page);
      await page.goto('/player/N743AS');
      await expectVideoPlaying(page);
      await expectNoSeriousAxeFindings(page, 'player');
      await page.screenshot({ path: `${SHOTS}/player-${width}.png` });
    });

    test('the loading overlay', async ({ page }) => {
      await signInByApi(page);
      await page.route('**/api/token', () => undefined); // never answered: loading stays
      await page.goto('/player/N743AS');
      await expect(page.getByText('Connecting to stream...')).toBeVisible();
      await expect(page.getByText('This may take a few moments')).toBeVisible();
      await expectNoSeriousAxeFindings(page, 'loading overlay');
      await page.screenshot({ path: `${SHOTS}/player-loading-${width}.png` });
    });

    test('the error overlay (a proxy answering a bare 502, simulated in the browser)', async ({
      page,
    }) => {
      await signInByApi(page);
      await page.route('**/api/token', (route) => route.fulfill({ status: 502, body: '' }));
      await page.goto('/player/N743AS');
      await expect(page.getByRole('alert')).toContainText('Stream Unavailable');
      await expect(page.getByRole('alert')).toContainText('Failed to fetch participant token');
      await expectNoSeriousAxeFindings(page, 'error overlay');
      await page.screenshot({ path: `${SHOTS}/player-error-${width}.png` });
    });
  });
}
