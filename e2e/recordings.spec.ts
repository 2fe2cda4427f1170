/**
 * Recordings (docs/product.md#recordings, decisions 0072, 0073 and 0086) on the
 * suite's shared product, with the recorder `npm start` runs started beside it for this spec alone
 * (the product runs without one, so that other specs count only viewers). At once, a viewer
 * watches N743AS's synthetic camera (VP8, simulcast) and Chromium publishes a canvas with the time
 * strip over WHIP to N953AS in H.264 and to N954AS in VP8 (no viewer: a real publisher is always
 * recorded). Each recording is listed with its container, plays in the Recordings page (reached
 * from /home) through Media Source Extensions, and a seek lands on the last frame that starts by
 * its target, which the recording places at its capture time (its time strip) within 67 ms (two
 * frames at 30 fps): at 30 fps, the frame whose strip says so, within 67 ms.
 *
 * In `npm test`: 5 s recorded, a seek to 3 s; then the page's keys, N743AS's timeline (a moment's
 * URL playing from its instant, the time and picture under the pointer, Enter and a click playing
 * from the instant chosen, a clip downloaded), its look at 1280, 768 and
 * 375 px (axe clean, whole, the README's screenshots: e2e/.artifacts/screenshots/recordings-*.png,
 * copied to docs/screenshots) and "Jump to live". With TAILCAM_LONG_TESTS=1 also 30 s recorded
 * and a seek to 20 s, as the issue asks.
 */
import { statSync } from 'node:fs';
import type { BrowserContext, Page } from '@playwright/test';
import { chromiumLaunchOptions } from '@tailcam/harness/chromium';
import {
  serveCanvasPublisherPage,
  startCanvasPublisher,
  stopCanvasPublisher,
} from '@tailcam/harness/canvas-publisher';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { E2E_BASE_URL } from './support/environment';
import {
  expect,
  expectNoSeriousAxeFindings,
  expectVideoPlaying,
  loginToken,
  signInByApi,
  test,
} from './support/fixtures';
import { localStage } from './support/local-stage';
import {
  expectPlayingFrom,
  instantToPlay,
  longestSpan,
  longestSpanTimes,
  momentOf,
  seek,
  seekLanding,
  startRecorder,
} from './support/recordings';
import { publishToken, WHIP_PUBLISHER_PORT } from './support/whip-publisher';

const LONG = process.env.TAILCAM_LONG_TESTS === '1';
/** What each aircraft is recorded from, and the container and codec its span must have. */
const CASES = [
  { stageId: 'N743AS', from: 'the synthetic camera', mimeType: /^video\/webm; codecs="vp8/ },
  { stageId: 'N953AS', from: 'WHIP H.264', codec: 'H264', mimeType: /^video\/mp4; codecs="avc1/ },
  { stageId: 'N954AS', from: 'WHIP VP8', codec: 'VP8', mimeType: /^video\/webm; codecs="vp8/ },
] as const;

test.use({ launchOptions: chromiumLaunchOptions() });

async function listedMimeTypes(page: Page, stageId: string): Promise<string[]> {
  const response = await page.request.get(`${E2E_BASE_URL}/api/recordings`, {
    headers: { authorization: `Bearer ${loginToken()}` },
  });
  expect(response.status()).toBe(200);
  const body = (await response.json()) as {
    aircraft: { stageId: string; spans: { mimeType: string }[] }[];
  };
  const spans = body.aircraft.find((entry) => entry.stageId === stageId)?.spans ?? [];
  return spans.map((span) => span.mimeType);
}

/** Records all three for `recordS` seconds, then plays each and seeks to `seekS`. */
async function recordAndSeek(
  page: Page,
  context: BrowserContext,
  recordS: number,
  seekS: number,
): Promise<void> {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir)
    throw new Error('E2E_DATA_DIR is not set: run the suite through playwright.config.ts');
  const recorder = await startRecorder(dataDir);
  const publisherPage = await serveCanvasPublisherPage(WHIP_PUBLISHER_PORT);
  const publishers: Page[] = [];
  try {
    await signInByApi(page);
    await page.goto('/player/N743AS');
    await expectVideoPlaying(page);
    await Promise.all(
      CASES.filter((each) => 'codec' in each).map(async ({ stageId, codec }) => {
        const publisher = await context.newPage();
        publishers.push(publisher);
        await publisher.goto(publisherPage.url);
        await startCanvasPublisher(publisher, {
          ...publishToken(stageId),
          width: 640,
          height: 360,
          timeStrip: { streamIndex: STREAM_IDS.indexOf(stageId) },
          videoCodec: codec,
        });
        await expect
          .poll(async () => (await localStage.stats()).stages[stageId]?.publisher)
          .toMatchObject({ kind: 'encoder', video: `video/${codec}` });
      }),
    );
    // The recorder joins each aircraft over WHEP as it learns who is on air (its long poll of
    // the stage): on a loaded machine, seconds after the publisher. The span is timed from then.
    await expect
      .poll(async () => (await localStage.stats()).whepSessions, {
        timeout: 20_000,
        message: "the recorder's WHEP session on each aircraft",
      })
      .toBe(CASES.length);
    await page.waitForTimeout(recordS * 1000 + 1500);
  } finally {
    for (const publisher of publishers) await stopCanvasPublisher(publisher).catch(() => undefined);
    await Promise.all(publishers.map((publisher) => publisher.close()));
    await publisherPage.close();
    // A clean stop finishes the segments being written.
    await recorder.stop();
  }

  await page.goto('/home');
  await page.getByRole('link', { name: 'Recordings' }).click();
  await expect(page).toHaveURL(/\/recordings$/);
  await expect(page).toHaveTitle('Recordings · Tailcam');
  for (const { stageId, from, mimeType } of CASES) {
    await test.step(`${stageId}, recorded from ${from}`, async () => {
      expect(await listedMimeTypes(page, stageId)).toContainEqual(expect.stringMatching(mimeType));
      await expect(page.getByRole('heading', { name: stageId })).toBeVisible();
      const longest = await longestSpan(page, stageId);
      expect(longest.seconds).toBeGreaterThanOrEqual(recordS - 2);
      await longest.button.click();
      const video = page.getByTestId('recording-video');
      await expect(video).toHaveAccessibleName(`Recording of ${stageId} from ${longest.start} UTC`);
      // Play plays: no second press on the video's own control.
      await expect
        .poll(() => video.evaluate((v: HTMLVideoElement) => !v.paused && v.currentTime > 0.3), {
          message: 'the span playing after its Play button alone',
        })
        .toBe(true);
      // At the size the publisher sends at its best (decision 0084: the recorder takes the top
      // layer): 640x360, the synthetic camera's top simulcast layer and the WHIP canvases' size.
      expect(
        await video.evaluate((v: HTMLVideoElement) => `${v.videoWidth}x${v.videoHeight}`),
      ).toBe('640x360');
      // The seek below measures frames shown with the playhead still.
      await video.evaluate((v: HTMLVideoElement) => v.pause());
      const { offMs, frameBeforeMs, timelineErrorMs } = await seekLanding(page, seekS);
      console.log(
        `${stageId} (${from}): a seek to ${seekS} s shows a frame ${offMs} ms off by its strip; ` +
          `it starts ${frameBeforeMs} ms before the target, placed ${timelineErrorMs} ms off its capture time`,
      );
      // The frame there: the last that starts by the target (a publisher starved of CPU may have
      // sent none for a while before it), placed on the timeline at its capture time.
      expect(frameBeforeMs).toBeGreaterThanOrEqual(-1);
      expect(frameBeforeMs).toBeLessThan(500);
      expect(Math.abs(timelineErrorMs)).toBeLessThanOrEqual(67);
    });
  }
}

/**
 * On N743AS's recording (the longest span): its moment's URL opens the page playing from it;
 * the timeline shows the time under the pointer and the focused cursor; Enter, then a click, play
 * from the instant chosen (the URL following); two marks download a clip as one file.
 */
async function timelinePlaysFromAnInstant(page: Page): Promise<void> {
  const span = await longestSpanTimes(page, loginToken(), 'N743AS');
  const { startMs, endMs } = span;
  // A whole second (the URL's precision), a second or more into the span.
  const { atMs, preview: withPicture } = instantToPlay(span);
  expect(endMs - atMs, 'room to play on after the instant').toBeGreaterThan(1500);
  const url = `/recordings/N743AS?t=${momentOf(atMs)}`;
  await page.goto(url);
  const entries = await page.evaluate(() => window.history.length);
  await expectPlayingFrom(page, (atMs - startMs) / 1000);
  const track = page.getByRole('slider', { name: 'Timeline of N743AS' });
  await expect(track).toHaveAttribute(
    'aria-valuetext',
    `${momentOf(atMs).slice(11, 19)} UTC, recorded`,
  );
  const timeline = page.getByTestId('timeline-N743AS');
  await expect(timeline.getByRole('button', { name: '1 h' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );

  // The pointer over the track shows the time under it; the focused cursor, its own.
  const preview = timeline.getByTestId('timeline-preview');
  await track.scrollIntoViewIfNeeded();
  const box = await track.boundingBox();
  if (!box) throw new Error('the timeline has no box');
  await page.mouse.move(box.x + box.width * 0.25, box.y + box.height / 2);
  await expect(preview).toHaveText(/^\d\d:\d\d:\d\d UTC(Not recorded)?$/);
  await track.focus();
  await page.mouse.move(0, 0);
  await expect(preview).toHaveText(new RegExp(`^${momentOf(atMs).slice(11, 19)} UTC`));
  // The segment's preview picture there, where the list names one, fetched with the token.
  console.log(`N743AS at ${momentOf(atMs)}: a preview picture listed: ${withPicture}`);
  if (withPicture) {
    await expect
      .poll(() =>
        preview
          .locator('img')
          .evaluate((img: HTMLImageElement) => img.src.startsWith('blob:') && img.naturalWidth > 0)
          .catch(() => false),
      )
      .toBe(true);
  }

  // Enter plays from the cursor: five minutes' zoom (steps of a second), a second on.
  await page.keyboard.press('+');
  await expect(timeline.getByRole('button', { name: '5 min' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await page.keyboard.press('ArrowRight');
  await expect(page).toHaveURL(`/recordings/N743AS?t=${momentOf(atMs + 1000)}`);
  await page.keyboard.press('Enter');
  await expectPlayingFrom(page, (atMs + 1000 - startMs) / 1000);

  // A click plays from the instant under it: a second before the cursor (drawn at its instant).
  // (Where the page is scrolled now: playing brought the player into view.)
  await track.scrollIntoViewIfNeeded();
  const cursor = await timeline.getByTestId('timeline-cursor').boundingBox();
  const trackBox = await track.boundingBox();
  if (!cursor || !trackBox) throw new Error('the cursor is not drawn');
  await track.click({
    position: {
      x: cursor.x + cursor.width / 2 - trackBox.x - trackBox.width / 300,
      y: trackBox.height / 2,
    },
  });
  await expect(page).toHaveURL(`/recordings/N743AS?t=${momentOf(atMs)}`);
  await expectPlayingFrom(page, (atMs - startMs) / 1000);
  // The moments chosen replaced the URL: no history entry each.
  expect(await page.evaluate(() => window.history.length)).toBe(entries);

  // A clip: marks a second apart each side of the cursor, downloaded as one file.
  await track.focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('i');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await timeline.getByRole('button', { name: 'Mark end' }).click();
  await expect(timeline.getByRole('status')).toHaveText(
    `Clip ${momentOf(atMs - 1000).slice(11, 19)}–${momentOf(atMs + 1000).slice(11, 19)} UTC`,
  );
  // The file, or the page's 'The download failed.' (the API's answer) at once, not a timeout.
  const failed = page.getByRole('alert').filter({ hasText: 'The download failed.' });
  const [download] = await Promise.all([
    Promise.race([
      page.waitForEvent('download', { timeout: 30_000 }),
      failed.waitFor({ timeout: 30_000 }).then(() => {
        throw new Error("the clip's download failed: the API's answer is in the product's log");
      }),
    ]),
    timeline.getByRole('button', { name: 'Download clip' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^N743AS-.+\.webm$/);
  const saved = await download.path();
  expect(statSync(saved).size, 'the clip file').toBeGreaterThan(10_000);
  await expect(page.getByRole('status').filter({ hasText: 'Preparing the download' })).toHaveCount(
    0,
  );
}

test('the synthetic camera and WHIP publishers in H.264 and VP8 are recorded, play back with a seek landing on their frame, by keyboard too, in a page whole and axe-clean at every width', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await recordAndSeek(page, context, 5, 3);

  // The keyboard seeks too: → is 5 s on, from where the player is (N743AS's span, the longest).
  const video = page.getByTestId('recording-video');
  const longest = await longestSpan(page, 'N743AS');
  await longest.button.click();
  await video.focus();
  await seek(page, 0.1);
  await page.keyboard.press('ArrowRight');
  // 5.1 s, or a little past it if the video plays on meanwhile; not 10.1 (a second handler). The
  // time is judged as first read at or past 5.09 s, every 50 ms: a second read after a slow poll
  // found the video played on past 6 s on a loaded machine.
  let landed = 0;
  await expect
    .poll(
      async () => {
        landed = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
        return landed;
      },
      { intervals: [50] },
    )
    .toBeGreaterThanOrEqual(5.09);
  expect(landed).toBeLessThan(6);

  await test.step('the timeline: a URL per moment, a click and Enter play from the instant, a clip downloads', () =>
    timelinePlaysFromAnInstant(page));

  // At each width: nothing wider than the window, the player, the spans' buttons and the
  // timeline whole, axe clean, and the screenshot the README shows
  // (docs/screenshots/recordings-*.png).
  await video.evaluate((v: HTMLVideoElement) => {
    v.pause();
    v.blur();
  });
  for (const width of [1280, 768, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow, `horizontal overflow at ${width} px`).toBeLessThanOrEqual(0);
    const box = await video.boundingBox();
    expect(box?.width).toBeLessThanOrEqual(width);
    const timeline = page.getByTestId('timeline-N743AS');
    for (const button of [
      longest.button,
      page.getByRole('button', { name: /^Download / }).first(),
      page.getByRole('slider', { name: 'Timeline of N743AS' }),
      timeline.getByRole('button', { name: '5 min' }),
      timeline.getByRole('button', { name: 'Later' }),
      timeline.getByRole('button', { name: 'Mark end' }),
      timeline.getByRole('button', { name: 'Download clip' }),
    ]) {
      const { x = -1, width: w = 0 } = (await button.boundingBox()) ?? {};
      expect(x, `a span's button starts inside at ${width} px`).toBeGreaterThanOrEqual(0);
      expect(x + w, `a span's button ends inside at ${width} px`).toBeLessThanOrEqual(width);
    }
    await expectNoSeriousAxeFindings(page, `the Recordings page playing at ${width} px`);
    // The picture shows N743AS's timeline focused: its cursor's time over the track.
    await page.getByRole('slider', { name: 'Timeline of N743AS' }).focus();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({
      path: `e2e/.artifacts/screenshots/recordings-${width}.png`,
      fullPage: true,
    });
  }
  await page.getByRole('link', { name: 'Jump to live' }).click();
  await expect(page).toHaveURL(/\/player\/N743AS$/);
});

test('30 s of each are recorded, and a seek to 20 s lands on its frame', async ({
  page,
  context,
}) => {
  test.skip(!LONG, 'set TAILCAM_LONG_TESTS=1 to record 30 s');
  test.setTimeout(180_000);
  await recordAndSeek(page, context, 30, 20);
});
