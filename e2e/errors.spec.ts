/**
 * docs/product.md#error-catalogue, row by row, through the product's real parts. Where the real
 * product cannot produce a situation, only that outside piece is simulated in the browser, and
 * the test's name says so.
 */
import type { Page } from '@playwright/test';
import { expect, expectVideoPlaying, playerVideo, signInByApi, test } from './support/fixtures';
import { localStage } from './support/local-stage';

function errorOverlay(page: Page) {
  return page.getByRole('alert').filter({ hasText: 'Stream Unavailable' });
}

function countTokenCalls(page: Page): () => number {
  let calls = 0;
  page.on('request', (request) => {
    if (request.url().endsWith('/api/token') && request.method() === 'POST') calls += 1;
  });
  return () => calls;
}

test.describe('error catalogue', () => {
  test.beforeEach(async ({ page }) => {
    await signInByApi(page);
  });

  test("an unknown stream shows the server's error text", async ({ page }) => {
    await page.goto('/player/N000XX');
    await expect(errorOverlay(page)).toContainText('Unknown stream: N000XX');
    await expect(page.getByRole('button', { name: 'Retry Connection' })).toBeVisible();
  });

  test("a token call answered by a proxy's bare 502 (simulated in the browser) shows 'Failed to fetch participant token'", async ({
    page,
  }) => {
    await page.route('**/api/token', (route) => route.fulfill({ status: 502, body: '' }));
    await page.goto('/player/N743AS');
    await expect(errorOverlay(page)).toContainText('Failed to fetch participant token');
  });

  test("a token removed in another tab shows 'Authentication token not found. Please log in again.' on retry", async ({
    page,
  }) => {
    await page.route('**/api/token', (route) => route.fulfill({ status: 502, body: '' }), {
      times: 1,
    });
    await page.goto('/player/N743AS');
    await expect(errorOverlay(page)).toBeVisible();
    await page.evaluate(() => localStorage.removeItem('token')); // as a logout elsewhere would
    await page.getByRole('button', { name: 'Retry Connection' }).click();
    await expect(errorOverlay(page)).toContainText(
      'Authentication token not found. Please log in again.',
    );
  });

  test('a missing SDK script (the script request failing, simulated in the browser) says the broadcast SDK is not loaded', async ({
    page,
  }) => {
    const tokenCalls = countTokenCalls(page);
    await page.route('**/sdk/stage.js', (route) => route.abort('failed'));
    await page.goto('/player/N743AS');
    await expect(errorOverlay(page)).toContainText('The broadcast SDK is not loaded');
    expect(tokenCalls()).toBe(0);
  });

  test("a join the local stage refuses shows the error's own message", async ({ page }) => {
    await localStage.failNextJoin({ stageId: 'N953AS', message: 'Stage is full' });
    await page.goto('/player/N953AS');
    await expect(errorOverlay(page)).toContainText('Stage is full');
  });

  test('a stage error shows its message, and one without a message the generic text', async ({
    page,
  }) => {
    await page.goto('/player/N954AS');
    await expectVideoPlaying(page);
    expect(
      (await localStage.raiseError({ stageId: 'N954AS', message: 'Camera offline' })).reached,
    ).toBe(1);
    await expect(errorOverlay(page)).toContainText('Camera offline');

    await page.getByRole('button', { name: 'Retry Connection' }).click();
    await expectVideoPlaying(page);
    await localStage.raiseError({ stageId: 'N954AS' });
    await expect(errorOverlay(page)).toContainText('An unknown stage error occurred.');
  });

  test('a browser refusing autoplay (play() rejecting, simulated in the browser) shows the click-to-play message, and a click plays', async ({
    page,
  }) => {
    await page.addInitScript(() => {
      // A browser that refuses autoplay ignores the autoplay attribute and rejects play().
      const autoplay = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'autoplay');
      Object.defineProperty(HTMLMediaElement.prototype, 'autoplay', {
        ...autoplay,
        get: () => false,
        set: () => undefined,
      });
      const setAttribute = Element.prototype.setAttribute;
      Element.prototype.setAttribute = function (this: Element, name: string, value: string) {
        if (this instanceof HTMLMediaElement && name.toLowerCase() === 'autoplay') return;
        setAttribute.call(this, name, value);
      };
      const realPlay = HTMLMediaElement.prototype.play;
      let refuse = true;
      HTMLMediaElement.prototype.play = function play(this: HTMLMediaElement) {
        if (refuse) {
          refuse = false;
          return Promise.reject(new DOMException('Autoplay is not allowed', 'NotAllowedError'));
        }
        return realPlay.call(this);
      };
    });
    await page.goto('/player/N743AS');
    const notice = page.getByText('Browser blocked autoplay. Please click the video to play.');
    await expect(notice).toBeVisible();
    expect(await playerVideo(page).evaluate((element: HTMLVideoElement) => element.paused)).toBe(
      true,
    );

    await playerVideo(page).click({ position: { x: 40, y: 40 } });
    await expectVideoPlaying(page);
    await expect(notice).toBeHidden();
  });
});

test.describe('player rules', () => {
  test.beforeEach(async ({ page }) => {
    await signInByApi(page);
  });

  test("'Retry Connection' fetches a new participant token and rejoins", async ({ page }) => {
    const tokenCalls = countTokenCalls(page);
    await page.route('**/api/token', (route) => route.fulfill({ status: 502, body: '' }), {
      times: 1,
    });
    await page.goto('/player/N743AS');
    await expect(errorOverlay(page)).toBeVisible();
    await page.getByRole('button', { name: 'Retry Connection' }).click();
    await expectVideoPlaying(page);
    expect(tokenCalls()).toBe(2);
  });

  test('a second token fetch while one is in flight is not sent', async ({ page }) => {
    const tokenCalls = countTokenCalls(page);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/token', (route) => route.fulfill({ status: 502, body: '' }), {
      times: 1,
    });
    await page.goto('/player/N743AS');
    await expect(errorOverlay(page)).toBeVisible();
    await page.route('**/api/token', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Retry Connection' }).dblclick();
    await expect(page.getByText('Connecting to stream...')).toBeVisible();
    await expect.poll(tokenCalls).toBe(2);
    release();
    await expectVideoPlaying(page);
    expect(tokenCalls()).toBe(2);
  });
});
