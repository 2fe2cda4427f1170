/**
 * What the Firefox specs (firefox-*.spec.ts) share: Debian's Firefox ESR driven through
 * puppeteer-core over WebDriver BiDi (harness/src/firefox.ts), inside Playwright's runner, against
 * the product global setup started. Playwright's `page` fixture is Chromium's, so these helpers
 * take puppeteer's Page and read the page through its own scripts.
 *
 * Firefox counts no frames in `getVideoPlaybackQuality()` for a WebRTC video (totalVideoFrames
 * stays 0), so a video plays here when `requestVideoFrameCallback` presents new frames and its
 * currentTime moves on.
 */
import { firefoxMissingReason, launchFirefox } from '@tailcam/harness/firefox';
import { pageKitScript } from '@tailcam/harness/page-scripts';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import type { Browser, Page } from 'puppeteer-core';
import { E2E_BASE_URL, E2E_PASSWORD, E2E_USERNAME } from './environment';
import { expect, loginToken, test } from './fixtures';

export type { Browser, Page };

/** Skips the file's tests, loudly, where Firefox is not installed. Call at the top of a spec. */
export function skipWithoutFirefox(): void {
  const reason = firefoxMissingReason();
  if (reason) console.log(`\n${'='.repeat(100)}\n${reason}\n${'='.repeat(100)}\n`);
  test.skip(reason !== undefined, reason);
}

/**
 * One Firefox for the whole file (beforeAll/afterAll): a launch costs seconds on two cores. Returns
 * a getter for the tests.
 */
export function firefoxForFile(options?: Parameters<typeof launchFirefox>[0]): () => Browser {
  let browser: Browser | undefined;
  test.beforeAll(async () => {
    test.setTimeout(60_000);
    browser = await launchFirefox(options);
  });
  test.afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('Firefox was not launched');
    return browser;
  };
}

/** The page the tests drive: the browser's first tab, made if it has none. */
export async function firefoxPage(browser: Browser): Promise<Page> {
  const [page] = await browser.pages();
  return page ?? browser.newPage();
}

/** `path` on the product global setup started, or on another instance (`baseUrl`). */
export function appUrl(path: string, baseUrl = E2E_BASE_URL): string {
  return new URL(path, baseUrl).toString();
}

/** Where a spec signs in: the suite's product and viewer unless it says otherwise. */
export interface FormSignIn {
  baseUrl?: string;
  username?: string;
  password?: string;
}

/** Signs in through the real form, as a viewer does, and waits for /home. */
export async function signInThroughFormIn(page: Page, signIn: FormSignIn = {}): Promise<void> {
  const { baseUrl = E2E_BASE_URL, username = E2E_USERNAME, password = E2E_PASSWORD } = signIn;
  await page.goto(appUrl('/', baseUrl));
  await page.waitForSelector('input[name="username"]');
  await page.type('input[name="username"]', username);
  await page.type('input[name="password"]', password);
  await page.click('button[type="submit"]');
  await expect.poll(() => pathOf(page)).toBe('/home');
}

/**
 * The page's path as the page has it: the app routes with the History API, and puppeteer's
 * `page.url()` over BiDi does not follow Firefox 140's pushState.
 */
export function pathOf(page: Page): Promise<string> {
  return page.evaluate(() => location.pathname);
}

/**
 * Keeps the sign-in the browser has (the form's, earlier in the file), or stores the run's login
 * token in the app's origin as a signed-in browser would have it (a test run alone, or a Firefox
 * launched again after a failure).
 */
export async function stayOrSignIn(page: Page): Promise<void> {
  if (!page.url().startsWith(appUrl('/'))) await page.goto(appUrl('/'));
  await page.evaluate((token) => {
    if (!localStorage.getItem('token')) localStorage.setItem('token', token);
  }, loginToken());
}

/** A CSS selector for the element named `name` (the app names its videos and badges). */
export function named(name: string): string {
  return `[aria-label=${JSON.stringify(name)}]`;
}

export interface VideoProgress {
  /** The element's currentTime, in seconds. */
  time: number;
  /** `presentedFrames` of the next frame shown (null when none came within a second). */
  presented: number | null;
}

/** Where the video at `selector` is: its time, and the count of the next frame it presents. */
export function videoProgress(page: Page, selector: string): Promise<VideoProgress | null> {
  return page.evaluate((wanted) => {
    const video = document.querySelector(wanted);
    if (!(video instanceof HTMLVideoElement)) return null;
    return new Promise<VideoProgress>((resolve) => {
      const timer = setTimeout(() => resolve({ time: video.currentTime, presented: null }), 1_000);
      video.requestVideoFrameCallback((_now, metadata) => {
        clearTimeout(timer);
        resolve({ time: video.currentTime, presented: metadata.presentedFrames });
      });
    });
  }, selector);
}

/** Waits until the video at `selector` really plays: frames presented and its time moving on. */
export async function expectPlayingIn(page: Page, selector: string): Promise<void> {
  await expect
    .poll(async () => (await videoProgress(page, selector))?.time ?? 0, {
      message: `${selector} plays (currentTime advances)`,
      timeout: 20_000,
    })
    .toBeGreaterThan(0.2);
  const before = await videoProgress(page, selector);
  try {
    await expect
      .poll(async () => (await videoProgress(page, selector))?.presented ?? 0, {
        message: `${selector} presents new frames`,
      })
      .toBeGreaterThan((before?.presented ?? 0) + 5);
  } catch (error) {
    // CI keeps only the output: what the video was left at says where it stopped.
    console.log(`${selector} does not play: ${await videoState(page, selector)}`);
    throw error;
  }
  await expect
    .poll(async () => (await videoProgress(page, selector))?.time ?? 0)
    .toBeGreaterThan(before?.time ?? 0);
}

/** The video's state in a line: its time, readiness, seeking or paused, and buffered ranges. */
function videoState(page: Page, selector: string): Promise<string> {
  return page.evaluate((wanted) => {
    const video = document.querySelector(wanted);
    if (!(video instanceof HTMLVideoElement)) return 'no video';
    const ranges = Array.from(
      { length: video.buffered.length },
      (_, index) =>
        `${video.buffered.start(index).toFixed(3)}–${video.buffered.end(index).toFixed(3)}`,
    );
    return [
      `currentTime ${video.currentTime.toFixed(3)}`,
      `readyState ${video.readyState}`,
      `seeking ${video.seeking}`,
      `paused ${video.paused}`,
      `buffered [${ranges.join(', ')}]`,
      `error ${video.error?.message ?? 'none'}`,
    ].join(', ');
  }, selector);
}

export interface FirefoxFrameStamp {
  streamId: string;
  frame: number;
  captureTimeMs: number;
}

/**
 * The time strip the synthetic camera (or the test's publisher) wrote into the frame the video at
 * `selector` shows now, read from its pixels with the harness's page kit; null if unreadable.
 */
export async function frameStampIn(
  page: Page,
  selector: string,
): Promise<FirefoxFrameStamp | null> {
  // Again each time: a navigation drops it. Evaluated by WebDriver, so the page's CSP allows it.
  await page.evaluate(await pageKitScript());
  const stamp = await page.evaluate((wanted) => {
    const video = document.querySelector(wanted);
    if (!(video instanceof HTMLVideoElement)) return null;
    return window.TailcamPageKit.frameStamp(video);
  }, selector);
  return stamp && frameStampOf(stamp);
}

/**
 * The strip of the first frame the video at `selector` presents after `act` (a key that makes the
 * video, or moves it), read in that frame's own callback: where a seek landed, however long the
 * page then takes to show it plays.
 */
export async function firstFrameStampAfter(
  page: Page,
  selector: string,
  act: () => Promise<void>,
): Promise<FirefoxFrameStamp | null> {
  await page.evaluate(await pageKitScript());
  const first = page.evaluate(
    (wanted) =>
      new Promise<ReturnType<typeof window.TailcamPageKit.frameStamp> | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), 20_000);
        const waitForVideo = () => {
          const video = document.querySelector(wanted);
          if (!(video instanceof HTMLVideoElement)) return void setTimeout(waitForVideo, 20);
          video.requestVideoFrameCallback(() => {
            clearTimeout(timer);
            resolve(window.TailcamPageKit.frameStamp(video));
          });
        };
        waitForVideo();
      }),
    selector,
  );
  await act();
  const stamp = await first;
  return stamp && frameStampOf(stamp);
}

function frameStampOf(stamp: {
  streamIndex: number;
  frame: number;
  captureTimeMs: number;
}): FirefoxFrameStamp {
  return {
    streamId: STREAM_IDS[stamp.streamIndex] ?? `unknown-${stamp.streamIndex}`,
    frame: stamp.frame,
    captureTimeMs: stamp.captureTimeMs,
  };
}

/**
 * Sets the page's viewport, and checks that the page has it. Puppeteer 25 sends BiDi's
 * `emulation.setScreenOrientationOverride` with every viewport, which Firefox 140 ESR does not
 * know; the viewport itself is a command of its own, sent beside it, that Firefox carries out (as
 * puppeteer itself tolerates for its default viewport).
 */
export async function setViewportSize(page: Page, width: number, height: number): Promise<void> {
  try {
    await page.setViewport({ width, height });
  } catch (error) {
    if (!String(error).includes('emulation.setScreenOrientationOverride')) throw error;
  }
  await expect
    .poll(() => page.evaluate(() => [window.innerWidth, window.innerHeight]))
    .toEqual([width, height]);
}

/** Clicks the element matching `selector` once it is there. */
export async function clickWhenThere(page: Page, selector: string): Promise<void> {
  await page.waitForSelector(selector, { visible: true });
  await page.click(selector);
}

/** Whether an element matching `selector` is in the page and takes up room. */
export function isShown(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((wanted) => {
    const element = document.querySelector(wanted);
    if (!element) return false;
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  }, selector);
}
