/**
 * Rewind in the live player (docs/product.md#rewind, decision 0088), on an instance of its own that
 * records as `npm start` does, in segments of 4 s: so the newest second is in the segment being
 * written, which the API serves as it grows (decision 0085).
 *
 * A viewer watching N743AS presses `j` and sees the picture whose time strip is 10 s older than
 * the live one's, drags the scrubber to its right end and sees a picture at most 2 s behind the
 * live one, and presses 'Go live' to have the live picture at once. The times it takes are printed
 * (the bench measures them: docs/benchmarks.md#rewind); the bounds here are wide, for a loaded
 * machine, and still fail a rewind that reloads or a 'Go live' that joins again.
 */
import type { Page } from '@playwright/test';
import { chromiumLaunchOptions } from '@tailcam/harness/chromium';
import { Product } from '@tailcam/harness/product';
import { signIn } from '@tailcam/harness/sign-in';
import { installPageKit } from '@tailcam/harness/page-scripts';
import {
  expect,
  expectNoSeriousAxeFindings,
  expectVideoPlaying,
  playerVideo,
  test,
} from './support/fixtures';
import { ownInstance } from './support/environment';

test.use({ launchOptions: chromiumLaunchOptions() });

/** The capture time (time strip) of the frame a video shows now. */
function stampOf(page: Page, testId: 'rewind-video' | 'live'): Promise<number | undefined> {
  const video = testId === 'live' ? playerVideo(page) : page.getByTestId(testId);
  return video
    .evaluate(
      (element: HTMLVideoElement) =>
        window.TailcamPageKit.frameStamp(element)?.captureTimeMs ?? null,
    )
    .then((value) => value ?? undefined);
}

/** Waits for the recording's video to show a frame; resolves with how long that took (ms). */
function firstRecordedFrameMs(page: Page, since: number): Promise<number> {
  return page.getByTestId('rewind-video').evaluate(
    (video: HTMLVideoElement, start) =>
      new Promise<number>((resolve) => {
        video.requestVideoFrameCallback(() => resolve(performance.now() - start));
      }),
    since,
  );
}

const VIEWER = { username: 'rewind-viewer', password: 'rewind viewer password 1' };

test.describe('rewind in the live player', () => {
  let product: Product;
  let loginToken: string;

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    // Its own instance, recording as `npm start` does (segments of 4 s), in the lane beside the
    // shared product's specs, whose counts of viewers and WHEP sessions it would change.
    product = new Product({ ...ownInstance('rewind', 700), env: { RECORDING: 'all' } });
    product.addViewer(VIEWER);
    await product.start();
    loginToken = await product.loginToken(VIEWER);
  });

  test.afterAll(async () => {
    await product?.dispose();
  });

  test('j goes 10 s back in the live picture, the scrubber reaches 2 s from live, Go live is at once', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await signIn(page, loginToken);
    await page.goto(`${product.baseUrl}/player/N743AS`);
    await expectVideoPlaying(page);
    await installPageKit(page);
    const rewind = page.getByRole('button', { name: 'Rewind 30 seconds' });
    await expect(rewind).toBeVisible();

    // What a person watches is recorded (decision 0084): 12 s of this watch, to go 10 s back in.
    await page.waitForTimeout(12_000);
    await expect(rewind).toBeEnabled({ timeout: 15_000 });

    await test.step('j: the picture 10 s older, at once', async () => {
      const liveStamp = await stampOf(page, 'live');
      expect(liveStamp).toEqual(expect.any(Number));
      const pressed = await page.evaluate(() => performance.now());
      await page.keyboard.press('j');
      const firstFrameMs = await firstRecordedFrameMs(page, pressed);
      await expect.poll(() => stampOf(page, 'rewind-video')).toEqual(expect.any(Number));
      const shown = (await stampOf(page, 'rewind-video')) ?? 0;
      const elapsed = (await page.evaluate(() => performance.now())) - pressed;
      const backMs = liveStamp! + elapsed - shown;
      console.log(
        `j: first recorded frame ${Math.round(firstFrameMs)} ms after the key; ${Math.round(backMs)} ms behind live`,
      );
      expect(backMs).toBeGreaterThan(8_500);
      expect(backMs).toBeLessThan(12_500);
      expect(firstFrameMs).toBeLessThan(3_000);
      await expect(page.getByTestId('rewind-behind')).toHaveText(/^0:(09|1[0-2]) behind live$/);
      await expect(page.getByRole('img', { name: /^Live connection quality: / })).toBeVisible();
    });

    await test.step("the scrubber under the pointer: the instant's time and its segment's picture", async () => {
      const scrubber = page.getByRole('slider', { name: 'The last hour of N743AS' });
      const [min, max] = await Promise.all([
        scrubber.getAttribute('min'),
        scrubber.getAttribute('max'),
      ]);
      const box = await scrubber.boundingBox();
      if (!box || min === null || max === null) throw new Error('no scrubber');
      // 8 s before its right end: a finished segment, whose preview the recorder wrote with it.
      const fraction = (Number(max) - 8_000 - Number(min)) / (Number(max) - Number(min));
      await scrubber.hover({ position: { x: box.width * fraction, y: box.height / 2 } });
      const preview = page.getByTestId('timeline-preview');
      await expect(preview).toContainText(/\d\d:\d\d:\d\d UTC/);
      await expect
        .poll(() => preview.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth))
        .toBe(160);
      await page.mouse.move(0, 0);
      await expect(preview).toHaveCount(0);
    });

    await test.step('behind live at 1280, 768 and 375 px: whole, axe clean', async () => {
      // The README's screenshots (e2e/.artifacts/screenshots/rewind-*.png, copied to
      // docs/screenshots).
      for (const width of [1280, 768, 375]) {
        await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - window.innerWidth,
        );
        expect(overflow, `horizontal overflow at ${width} px`).toBeLessThanOrEqual(0);
        await expect(page.getByRole('button', { name: 'Go live' })).toBeInViewport();
        await expectNoSeriousAxeFindings(page, `the player behind live at ${width} px`);
        await page.screenshot({ path: `e2e/.artifacts/screenshots/rewind-${width}.png` });
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await test.step('the scrubber at its right end: at most 2 s behind the live picture', async () => {
      const scrubber = page.getByRole('slider', { name: 'The last hour of N743AS' });
      const max = await scrubber.getAttribute('max');
      await scrubber.fill(max ?? '0');
      await expect
        .poll(
          async () => {
            const live = await stampOf(page, 'live');
            const recorded = await stampOf(page, 'rewind-video');
            return live === undefined || recorded === undefined ? undefined : live - recorded;
          },
          { timeout: 10_000, message: 'the live picture minus the recorded one, by their strips' },
        )
        .toBeLessThan(2_000);
      // And it plays on there, through the next segments' hand-overs (4 s each), still that near.
      const recordingTime = () =>
        page.getByTestId('rewind-video').evaluate((video: HTMLVideoElement) => video.currentTime);
      const before = await recordingTime();
      await page.waitForTimeout(6_000);
      expect(await recordingTime()).toBeGreaterThan(before + 4);
      const live = await stampOf(page, 'live');
      const recorded = await stampOf(page, 'rewind-video');
      console.log(`the scrubber's right end, 6 s on: ${live! - recorded!} ms behind live`);
      expect(live! - recorded!).toBeLessThan(3_000);
    });

    await test.step("'Go live': the live picture, with no join", async () => {
      const pressed = await page.evaluate(() => performance.now());
      await page.getByRole('button', { name: 'Go live' }).click();
      await expect(page.getByTestId('rewind-video')).toHaveCount(0);
      const goneMs = (await page.evaluate(() => performance.now())) - pressed;
      console.log(`Go live: recording gone ${Math.round(goneMs)} ms after the click`);
      await expect(page.getByTestId('rewind-behind')).toHaveText('Live');
      await expectVideoPlaying(page);
    });
  });
});
