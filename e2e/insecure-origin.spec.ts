/**
 * Tailcam opened over plain http at a name that is not this machine, as `HOST=0.0.0.0 npm start`
 * on a LAN is opened from another computer: the page is no secure context, so it has no
 * `crypto.randomUUID` (decision 0062). The name is mapped to loopback inside Chromium only
 * (`--host-resolver-rules`); 127.0.0.2 would not do, as Chromium trusts all of 127.0.0.0/8.
 */
import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '@tailcam/harness/chromium';
import { E2E_PORT } from './support/environment';
import { expect, expectVideoPlaying, signInThroughForm, test } from './support/fixtures';

const LAN_NAME = 'tailcam-lan.test';
let browser: Browser | undefined;

test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

test('a viewer at a plain-http address that is not this machine signs in and watches N743AS', async () => {
  browser = await chromium.launch({
    executablePath: chromiumExecutable(),
    args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${LAN_NAME} 127.0.0.1`],
  });
  const page = await browser.newPage({ baseURL: `http://${LAN_NAME}:${E2E_PORT}` });
  await page.goto('/');
  expect(
    await page.evaluate(() => ({
      secure: window.isSecureContext,
      randomUUID: typeof crypto.randomUUID,
    })),
  ).toEqual({ secure: false, randomUUID: 'undefined' });

  await signInThroughForm(page);
  await page.getByRole('link', { name: /N743AS/ }).click();
  await expect(page).toHaveURL(/\/player\/N743AS$/);
  await expectVideoPlaying(page);
  expect(await page.evaluate(() => sessionStorage.getItem('tailcam_viewer_client_id'))).toMatch(
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  );
});
