/**
 * The player beyond the spec (decision 0056, docs/product.md#live-stats and after), in Chromium
 * against the real product:
 * - the live stats' glass-to-glass figure agrees with the time strip (the capture time the
 *   synthetic camera writes into its pixels, which the app never reads) within 20 ms, and its
 *   frames shown with the frames the strip says were shown within 2 a second;
 * - the connection quality reads 'Good' on loopback, by its accessible name;
 * - every new control works from the keyboard alone, is announced, and axe-core stays clean;
 * - a camera that goes off air shows 'Waiting for video from …', not an error, and its return
 *   plays in the same page with no 'Connection lost'.
 */
import type { Page } from '@playwright/test';
import { installPageKit } from '@tailcam/harness/page-scripts';
import { median } from '@tailcam/harness/stats';
import {
  expect,
  expectNoSeriousAxeFindings,
  expectVideoPlaying,
  playerVideo,
  recordAnnouncements,
  recordWhenShown,
  signInByApi,
  test,
} from './support/fixtures';
import { localStage, readFrameStamp } from './support/local-stage';

/** The value the stats overlay shows beside `label` (a <dt>/<dd> pair). */
function statValue(page: Page, label: string) {
  return page
    .getByRole('region', { name: 'Live stats' })
    .locator('dt', { hasText: new RegExp(`^${label}`) })
    .locator('xpath=following-sibling::dd[1]');
}

test.describe('the player beyond the spec', () => {
  test.beforeEach(async ({ page }) => {
    await signInByApi(page);
  });

  test('the live stats agree with the time strip: glass to glass within 20 ms (half of it under load), frames shown within 2', async ({
    page,
  }) => {
    const waitingShown = await recordWhenShown(page, 'Waiting for video from');
    await page.goto('/player/N743AS');
    await expectVideoPlaying(page);
    await page.keyboard.press('i');
    await expect(statValue(page, 'Glass to glass$')).toHaveText(/^-?\d+(\.\d)? ms$/, {
      timeout: 10_000,
    });
    await installPageKit(page);

    // For 6 s: every frame the page shows, read back from its pixels (the truth), and once a
    // second what the overlay says.
    const run = await page.evaluate(async (durationMs) => {
      const video = document.querySelector('video');
      if (!video) throw new Error('no video');
      const decoder = window.TailcamPageKit;
      // Only the strip's rows are copied out of each frame: reading back whole frames 30 times a
      // second would slow the very playback being measured.
      const canvas = document.createElement('canvas');
      const context = canvas.getContext('2d', { willReadFrequently: true });
      if (!context) throw new Error('no 2d context');
      // The strip's band, scaled down to 4 × 4 pixels a cell: enough to read each cell's centre,
      // and cheap enough to do for every frame without slowing the playback being measured.
      const SCALE = 4;
      const readStrip = () => {
        const width = video.videoWidth;
        const height = video.videoHeight;
        const geometry = decoder.timeStripGeometry(width, height);
        const cell = width / decoder.TIME_STRIP_COLUMNS;
        const smallWidth = decoder.TIME_STRIP_COLUMNS * SCALE;
        const smallHeight = Math.round((geometry.height / cell) * SCALE);
        canvas.width = smallWidth;
        canvas.height = smallHeight;
        context.drawImage(
          video,
          0,
          geometry.y,
          width,
          geometry.height,
          0,
          0,
          smallWidth,
          smallHeight,
        );
        const data = context.getImageData(0, 0, smallWidth, smallHeight).data;
        return decoder.decodeTimeStripWith(width, height, (x, y) => {
          const sx = Math.min(smallWidth - 1, Math.floor((x / cell) * SCALE));
          const sy = Math.min(
            smallHeight - 1,
            Math.max(0, Math.floor(((y - geometry.y) / cell) * SCALE)),
          );
          const offset = (sy * smallWidth + sx) * 4;
          return (
            0.299 * (data[offset] ?? 0) +
            0.587 * (data[offset + 1] ?? 0) +
            0.114 * (data[offset + 2] ?? 0)
          );
        });
      };
      const strip: { glassToGlassMs: number; frame: number }[] = [];
      const overlay: { glassToGlass: string; frameRate: string }[] = [];
      const valueOf = (label: string) => {
        for (const term of document.querySelectorAll('section dt')) {
          if (term.textContent === label) return term.nextElementSibling?.textContent ?? '';
        }
        return '';
      };
      const readMs: number[] = [];
      // Frames presented that this reader's callback never saw (it ran late and the browser
      // coalesced): what the strip could not count, so the truth lies in [seen, seen + unseen].
      let unseen = 0;
      let lastPresented: number | undefined;
      const started = performance.now();
      const onFrame = (_now: number, metadata: VideoFrameCallbackMetadata) => {
        if (performance.now() - started > durationMs) return;
        if (lastPresented !== undefined) {
          unseen += Math.max(0, metadata.presentedFrames - lastPresented - 1);
        }
        lastPresented = metadata.presentedFrames;
        const readStart = performance.now();
        const stamp = readStrip();
        readMs.push(performance.now() - readStart);
        if (stamp) {
          strip.push({
            glassToGlassMs:
              performance.timeOrigin + metadata.expectedDisplayTime - stamp.captureTimeMs,
            frame: stamp.frame,
          });
        }
        video.requestVideoFrameCallback(onFrame);
      };
      video.requestVideoFrameCallback(onFrame);
      const reader = setInterval(
        () =>
          overlay.push({
            glassToGlass: valueOf('Glass to glass'),
            frameRate: valueOf('Frame rate'),
          }),
        1_000,
      );
      await new Promise((resolve) => setTimeout(resolve, durationMs));
      clearInterval(reader);
      return { strip, overlay, elapsedMs: performance.now() - started, readMs, unseen };
    }, 6_000);

    const overlayGlassToGlass = run.overlay
      .map((reading) => /^([\d.]+) ms$/.exec(reading.glassToGlass)?.[1])
      .filter((value): value is string => value !== undefined)
      .map(Number);
    const overlayShown = run.overlay
      .map((reading) => /, (\d+) shown$/.exec(reading.frameRate)?.[1])
      .filter((value): value is string => value !== undefined)
      .map(Number);
    const stripGlassToGlass = median(run.strip.map((frame) => frame.glassToGlassMs));
    const stripShownPerSecond =
      new Set(run.strip.map((frame) => frame.frame)).size / (run.elapsedMs / 1000);
    console.log(
      `glass to glass: overlay ${JSON.stringify(overlayGlassToGlass)} (median ${median(overlayGlassToGlass)}), ` +
        `time strip median ${stripGlassToGlass.toFixed(1)} ms over ${run.strip.length} frames; ` +
        `frames shown: overlay ${JSON.stringify(overlayShown)}, strip ${stripShownPerSecond.toFixed(1)}/s ` +
        `(+ ${run.unseen} presented between the reader's callbacks); ` +
        `reading a strip took ${median(run.readMs).toFixed(1)} ms (median)`,
    );

    expect(overlayGlassToGlass.length, 'overlay readings with a measured figure').toBeGreaterThan(
      3,
    );
    expect(run.strip.length, 'frames read back from their pixels').toBeGreaterThan(60);
    // Within 20 ms, or half the figure on a loaded machine: Chromium places each frame's
    // captureTime through the stage's sender reports, and a report that waits for a busy core
    // between its stamp and the wire moves every captureTime by that wait (25 ms at a 58 ms glass
    // to glass, measured at load ~10). An overlay showing another figure (the network-only
    // estimate, a stale second, the wrong clock) is off by more than either.
    expect(Math.abs(median(overlayGlassToGlass) - stripGlassToGlass)).toBeLessThanOrEqual(
      Math.max(20, stripGlassToGlass / 2),
    );
    // The overlay's readings each cover a second of the run: their mean is its frame rate over it.
    const overlayShownMean =
      overlayShown.reduce((sum, value) => sum + value, 0) / Math.max(1, overlayShown.length);
    // Frames seen in the pixels, plus at most those presented while the reader was busy.
    const unseenPerSecond = run.unseen / (run.elapsedMs / 1000);
    expect(overlayShownMean).toBeGreaterThanOrEqual(stripShownPerSecond - 2);
    expect(overlayShownMean).toBeLessThanOrEqual(stripShownPerSecond + unseenPerSecond + 2);
    expect(await waitingShown(), 'a normal join never flashes the waiting notice').toBe(false);
  });

  test("the connection quality reads 'Good' on loopback, by its accessible name", async ({
    page,
  }) => {
    await page.goto('/player/N953AS');
    await expectVideoPlaying(page);
    await expect(page.getByRole('img', { name: 'Connection quality: Good' })).toBeVisible();
  });

  test('every new control works from the keyboard alone, is announced, and axe stays clean', async ({
    page,
  }) => {
    // What the player's polite region says, in order: the HUD's phase of flight may take it over
    // a moment after a control's announcement.
    const announced = await recordAnnouncements(page);
    await page.goto('/player/N743AS');
    await expectVideoPlaying(page);
    const controls = page.getByRole('group', { name: 'Player controls' });
    const statsButton = controls.getByRole('button', { name: 'Live stats' });
    const helpButton = controls.getByRole('button', { name: 'Keyboard shortcuts' });

    // Tab to the stats button (the header's, the back link's, the video's stops come first).
    for (let presses = 0; presses < 12; presses += 1) {
      if (await statsButton.evaluate((element) => element === document.activeElement)) break;
      await page.keyboard.press('Tab');
    }
    await expect(statsButton).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(statsButton).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByRole('region', { name: 'Live stats' })).toBeVisible();
    await expect.poll(announced).toContain('Live stats shown');
    await expectNoSeriousAxeFindings(page, 'player with live stats');

    await page.keyboard.press('Tab');
    await expect(helpButton).toBeFocused();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(dialog).toBeVisible();
    for (const text of ['Fullscreen', 'Picture-in-picture', 'Live stats', 'This help']) {
      await expect(dialog).toContainText(text);
    }
    // Modal: Tab stays inside the dialog.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await dialog.evaluate((element) => element.contains(document.activeElement))).toBe(true);
    await expectNoSeriousAxeFindings(page, 'keyboard help');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(helpButton).toBeFocused();

    await page.keyboard.press('i');
    await expect(page.getByRole('region', { name: 'Live stats' })).toBeHidden();
    await expect.poll(announced).toContain('Live stats hidden');
    await page.keyboard.press('?');
    await expect(dialog).toBeVisible();
    await page.keyboard.press('?');
    await expect(dialog).toBeHidden();

    // f: the player box fullscreen and back, or said to be unavailable where it is.
    const fullscreenEnabled = await page.evaluate(() => document.fullscreenEnabled);
    await page.keyboard.press('f');
    if (fullscreenEnabled) {
      await expect.poll(announced).toContain('Fullscreen on');
      expect(
        await page.evaluate(() =>
          document.fullscreenElement?.contains(document.querySelector('video')),
        ),
      ).toBe(true);
      await page.keyboard.press('f');
      await expect.poll(announced).toContain('Fullscreen off');
      expect(await page.evaluate(() => document.fullscreenElement)).toBeNull();
    } else {
      await expect.poll(announced).toContain('Fullscreen is not available here');
    }

    // p: the video in picture-in-picture and back, or said to be unavailable where it is.
    const pictureInPictureEnabled = await page.evaluate(() => document.pictureInPictureEnabled);
    await page.keyboard.press('p');
    if (pictureInPictureEnabled) {
      await expect.poll(announced).toContain('Picture-in-picture on');
      expect(await page.evaluate(() => document.pictureInPictureElement?.tagName)).toBe('VIDEO');
      await page.keyboard.press('p');
      await expect.poll(announced).toContain('Picture-in-picture off');
    } else {
      await expect.poll(announced).toContain('Picture-in-picture is not available here');
    }
    await expectVideoPlaying(page);
  });

  test("a camera off air shows 'Waiting for video from N954AS', not an error; its return plays in the same page", async ({
    page,
  }) => {
    const connectionLostShown = await recordWhenShown(page, 'Connection lost. Reconnecting...');
    await page.goto('/player/N954AS');
    await expectVideoPlaying(page);
    await page.evaluate(() => ((window as unknown as { e2eSamePage: boolean }).e2eSamePage = true));
    try {
      await localStage.camera({ action: 'stop', stageId: 'N954AS' });
      const notice = page.getByText('Waiting for video from N954AS');
      await expect(notice).toBeVisible();
      await expect(
        page.getByText('Connected. The picture appears as soon as the aircraft sends it.'),
      ).toBeVisible();
      await expect(page.getByRole('alert')).toHaveCount(0);
      await expect(page.getByText('Connecting to stream...')).toBeHidden();
    } finally {
      await localStage.camera({ action: 'start', stageId: 'N954AS' });
    }
    await expect(page.getByText('Waiting for video from N954AS')).toBeHidden({ timeout: 20_000 });
    await expectVideoPlaying(page);
    await expect.poll(async () => (await readFrameStamp(page))?.streamId).toBe('N954AS');
    expect(await connectionLostShown()).toBe(false);
    expect(
      await page.evaluate(() => (window as unknown as { e2eSamePage?: boolean }).e2eSamePage),
    ).toBe(true);
    await expect(playerVideo(page)).toBeVisible();
  });
});
