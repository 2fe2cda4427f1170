/**
 * What the end-to-end tests share: signing in (through the UI or, to get to the point faster,
 * through the API), watching the player's video, and the local stage's loopback-only controls.
 */
import { expect, test as base, type Page } from '@playwright/test';
import { E2E_BASE_URL, E2E_PASSWORD, E2E_USERNAME } from './environment';

export async function loginToken(): Promise<string> {
  const response = await fetch(`${E2E_BASE_URL}/api/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: E2E_USERNAME, password: E2E_PASSWORD }),
  });
  expect(response.status, 'the e2e viewer can log in').toBe(200);
  const body = (await response.json()) as { token: string };
  return body.token;
}

/** Stores a real login token before any page script runs, as a signed-in browser would have. */
export async function signInByApi(page: Page): Promise<void> {
  const token = await loginToken();
  await page.addInitScript((value) => {
    if (!localStorage.getItem('token')) localStorage.setItem('token', value);
  }, token);
}

export async function signInThroughForm(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Username').fill(E2E_USERNAME);
  await page.getByLabel('Password').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page).toHaveURL(/\/home$/);
}

export function playerVideo(page: Page) {
  return page.getByLabel(/^Live video from /);
}

/** Waits until the player's video is really playing: frames decoded and time moving on. */
export async function expectVideoPlaying(page: Page): Promise<void> {
  const video = playerVideo(page);
  await expect(video).toBeVisible();
  await expect
    .poll(() => video.evaluate((element: HTMLVideoElement) => element.currentTime), {
      message: 'the video plays (currentTime advances)',
      timeout: 20_000,
    })
    .toBeGreaterThan(0.2);
  const before = await video.evaluate((element: HTMLVideoElement) => ({
    time: element.currentTime,
    frames: element.getVideoPlaybackQuality().totalVideoFrames,
  }));
  await expect
    .poll(() =>
      video.evaluate(
        (element: HTMLVideoElement) => element.getVideoPlaybackQuality().totalVideoFrames,
      ),
    )
    .toBeGreaterThan(before.frames + 5);
  await expect
    .poll(() => video.evaluate((element: HTMLVideoElement) => element.currentTime))
    .toBeGreaterThan(before.time);
}

export const test = base;
export { expect };
