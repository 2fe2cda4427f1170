/**
 * What the end-to-end tests share: signing in (through the UI or, to get to the point faster,
 * through the API), watching the player's video, and the local stage's loopback-only controls.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test as base, type Page } from '@playwright/test';
import { playback, playerVideo } from '@tailcam/harness/player';
import { signIn } from '@tailcam/harness/sign-in';
import { E2E_PASSWORD, E2E_USERNAME } from './environment';

/** The login token global setup got for the whole run (see global-setup.ts). */
export function loginToken(): string {
  const token = process.env.E2E_LOGIN_TOKEN;
  if (!token)
    throw new Error('E2E_LOGIN_TOKEN is not set: run the suite through playwright.config.ts');
  return token;
}

/** Signs the page in with the run's real login token, as a signed-in browser would be. */
export function signInByApi(page: Page): Promise<void> {
  return signIn(page, loginToken());
}

export async function signInThroughForm(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Username').fill(E2E_USERNAME);
  await page.getByLabel('Password').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page).toHaveURL(/\/home$/);
}

export { playerVideo };

/** Waits until the player's video is really playing: frames decoded and time moving on. */
export async function expectVideoPlaying(page: Page): Promise<void> {
  const video = playerVideo(page);
  await expect(video).toBeVisible();
  await expect
    .poll(async () => (await playback(page)).time, {
      message: 'the video plays (currentTime advances)',
      timeout: 20_000,
    })
    .toBeGreaterThan(0.2);
  const before = await playback(page);
  await expect.poll(async () => (await playback(page)).frames).toBeGreaterThan(before.frames + 5);
  await expect.poll(async () => (await playback(page)).time).toBeGreaterThan(before.time);
}

/**
 * Records whether `text` was ever shown, however briefly (a fast reconnect shows its message for
 * a few milliseconds). Call before the page loads; poll the returned function.
 */
export async function recordWhenShown(page: Page, text: string): Promise<() => Promise<boolean>> {
  await page.addInitScript((wanted) => {
    const seen = () => document.body?.innerText.includes(wanted) ?? false;
    new MutationObserver(() => {
      if (seen()) sessionStorage.setItem(`e2e-shown:${wanted}`, '1');
    }).observe(document, { subtree: true, childList: true, characterData: true });
  }, text);
  return () =>
    page.evaluate((wanted) => sessionStorage.getItem(`e2e-shown:${wanted}`) === '1', text);
}

/**
 * Records every text the page's live regions (`aria-live`) say, in order, however soon the next
 * replaces it (the player's one polite region says each announcement in turn: a choice's, then
 * the HUD's phase of flight 60 ms later). Call before the page loads; poll the returned function.
 */
export async function recordAnnouncements(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const said: string[] = [];
    (window as unknown as { e2eAnnounced: string[] }).e2eAnnounced = said;
    new MutationObserver((mutations) => {
      for (const mutation of mutations) {
        const target =
          mutation.target instanceof Element ? mutation.target : mutation.target.parentElement;
        const region = target?.closest('[aria-live]');
        const text = region?.textContent?.trim();
        if (text && said.at(-1) !== text) said.push(text);
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  return () =>
    page.evaluate(() => [...(window as unknown as { e2eAnnounced: string[] }).e2eAnnounced]);
}

/**
 * Counts top-level navigations (loads and reloads) of the page: a recovery "without a reload"
 * leaves it unchanged.
 */
export function countLoads(page: Page): () => number {
  let loads = 0;
  page.on('load', () => (loads += 1));
  return () => loads;
}

/** The id of the video track the player shows now (undefined before the first one). */
export function videoTrackId(page: Page): Promise<string | undefined> {
  return playerVideo(page).evaluate((element: HTMLVideoElement) => {
    const stream = element.srcObject;
    return stream instanceof MediaStream ? stream.getVideoTracks()[0]?.id : undefined;
  });
}

export const test = base;
export { expect };

/** axe-core on the page as it is now: no serious or critical finding. */
export async function expectNoSeriousAxeFindings(page: Page, screen: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.length} nodes)`);
  expect(serious, `axe findings on ${screen}`).toEqual([]);
}
