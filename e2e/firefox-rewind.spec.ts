/**
 * Rewind in the live player, in Firefox (Debian's Firefox ESR over WebDriver BiDi,
 * e2e/support/firefox.ts; docs/product.md#rewind, decision 0088): with the recorder `npm start`
 * runs beside the suite's product for this file alone (4 s segments, its default), a viewer
 * watching N743AS presses `j` and sees the picture whose time strip is 10 s older than the live
 * one's, in Firefox's own Media Source Extensions; drags the scrubber to its right end and sees the
 * recording play on within 3 s of live; then End, and the live picture is back.
 */
import {
  appUrl,
  expectPlayingIn,
  firefoxForFile,
  firefoxPage,
  frameStampIn,
  named,
  skipWithoutFirefox,
  stayOrSignIn,
} from './support/firefox';
import { expect, test } from './support/fixtures';
import { startRecorder } from './support/recordings';

skipWithoutFirefox();
const firefox = firefoxForFile({ width: 1280, height: 900 });

const REWIND_VIDEO = '[data-testid="rewind-video"]';
const LIVE_VIDEO = named('Live video from N743AS');

test('j goes 10 s back in the live picture in Firefox, and End is live again', async () => {
  test.setTimeout(90_000);
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir)
    throw new Error('E2E_DATA_DIR is not set: run the suite through playwright.config.ts');
  const page = await firefoxPage(firefox());
  await stayOrSignIn(page);
  const recorder = await startRecorder(dataDir, 4_000);
  try {
    await page.goto(appUrl('/player/N743AS'));
    await expectPlayingIn(page, LIVE_VIDEO);
    // What a person watches is recorded (decision 0084): 12 s of this watch, to go 10 s back in.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    await expect
      .poll(
        () =>
          page.evaluate(() => {
            const button = [...document.querySelectorAll('button')].find(
              (each) => each.textContent === 'Rewind 30 seconds',
            );
            return button ? button.disabled : null;
          }),
        { timeout: 15_000, message: "'Rewind 30 seconds' enabled once something is recorded" },
      )
      .toBe(false);

    const live = await frameStampIn(page, LIVE_VIDEO);
    expect(live?.streamId).toBe('N743AS');
    await page.keyboard.press('j');
    await expectPlayingIn(page, REWIND_VIDEO);
    const recorded = await frameStampIn(page, REWIND_VIDEO);
    expect(recorded?.streamId).toBe('N743AS');
    const backMs = (live?.captureTimeMs ?? 0) - (recorded?.captureTimeMs ?? 0);
    console.log(`Firefox, j: the recorded picture ${backMs} ms older than the live one at the key`);
    expect(backMs).toBeGreaterThan(7_000);
    expect(backMs).toBeLessThan(13_000);
    await expect
      .poll(() => page.$eval('[data-testid="rewind-behind"]', (element) => element.textContent))
      .toMatch(/behind live$/);

    // The scrubber's right end: the segment being written, read as it grows (Firefox buffers an
    // append-only WebM's unknown-size Cluster as it comes when each segment begins after an
    // abort(), as the feed does); and it plays on from there through the segments that follow.
    await page.evaluate(() => {
      const scrubber = document.querySelector('input[type="range"]') as HTMLInputElement;
      const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      setValue.call(scrubber, scrubber.max);
      scrubber.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    await expectPlayingIn(page, REWIND_VIDEO);
    const liveNow = await frameStampIn(page, LIVE_VIDEO);
    const recordedNow = await frameStampIn(page, REWIND_VIDEO);
    const behindMs = (liveNow?.captureTimeMs ?? 0) - (recordedNow?.captureTimeMs ?? 0);
    console.log(`Firefox, the scrubber's right end, 6 s on: ${behindMs} ms behind live`);
    expect(behindMs).toBeLessThan(3_000);

    await page.keyboard.press('End');
    await expect.poll(() => page.$(REWIND_VIDEO)).toBeNull();
    await expect
      .poll(() => page.$eval('[data-testid="rewind-behind"]', (element) => element.textContent))
      .toBe('Live');
    await expectPlayingIn(page, LIVE_VIDEO);
  } finally {
    await recorder.stop();
  }
});
