/**
 * Playback beyond the live player, in Firefox (Debian's Firefox ESR over WebDriver BiDi,
 * e2e/support/firefox.ts) against the suite's product: the live player's rewind while N743AS is
 * recorded (← 5 s back, the scrubber's right end within 3 s of live, End); a recording of N743AS's synthetic camera
 * played on the Recordings page (through Media Source Extensions), its pixels naming N743AS and
 * its frames moving on, and played from an instant by its moment's URL (`?t=`); and Eyevinn's WHEP player, on a page of another origin, playing N743AS with
 * what `npm run subscribe-token` prints (docs/decisions/0055-whep-playback.md); and N953AS's flight
 * data, through the local SDK's in-band messages (decision 0094).
 *
 * One Firefox for the file, signed in with the run's login token.
 */
import type { ServedPage } from '@tailcam/harness/page-scripts';
import type { WhepPlayerPage } from '@tailcam/harness/third-party-pages';
import { z } from 'zod';
import { E2E_BASE_URL } from './support/environment';
import {
  appUrl,
  clickWhenThere,
  expectPlayingIn,
  firefoxForFile,
  firefoxPage,
  firstFrameStampAfter,
  frameStampIn,
  named,
  pathOf,
  skipWithoutFirefox,
  stayOrSignIn,
  videoProgress,
  type Page,
} from './support/firefox';
import { expect, loginToken, test } from './support/fixtures';
import {
  expectTrueFlightData,
  hudAgreesWithFrame,
  readHudInPage,
  readInBandMessagesInPage,
} from './support/flight-data';
import { localStage } from './support/local-stage';
import { startRecorder } from './support/recordings';
import { servePlayerPage, subscribeToken } from './support/whip-publisher';

skipWithoutFirefox();
const firefox = firefoxForFile({ width: 1280, height: 900 });

const recordingsSchema = z.object({
  aircraft: z.array(
    z.object({
      stageId: z.string(),
      spans: z.array(z.object({ startMs: z.number(), endMs: z.number() })),
    }),
  ),
});

/** The longest span the API lists for `stageId` that started at `sinceMs` or later. */
async function longestSpanSince(
  stageId: string,
  sinceMs: number,
): Promise<{ startMs: number; endMs: number } | undefined> {
  const response = await fetch(`${E2E_BASE_URL}/api/recordings`, {
    headers: { authorization: `Bearer ${loginToken()}` },
  });
  if (!response.ok) return undefined;
  const { aircraft } = recordingsSchema.parse(await response.json());
  const spans = aircraft.find((entry) => entry.stageId === stageId)?.spans ?? [];
  return spans
    .filter((span) => span.startMs >= sinceMs)
    .sort((a, b) => b.endMs - b.startMs - (a.endMs - a.startMs))[0];
}

/** How long `stageId` has been recorded since its first span at `sinceMs` or later began, ms. */
async function recordedFor(stageId: string, sinceMs: number): Promise<number> {
  const response = await fetch(`${E2E_BASE_URL}/api/recordings?stage=${stageId}`, {
    headers: { authorization: `Bearer ${loginToken()}` },
  });
  if (!response.ok) return 0;
  const { aircraft } = recordingsSchema.parse(await response.json());
  const starts = (aircraft[0]?.spans ?? [])
    .map((span) => span.startMs)
    .filter((startMs) => startMs >= sinceMs);
  return starts.length === 0 ? 0 : Date.now() - Math.min(...starts);
}

/** The same, its length in seconds (0 without one). */
async function longestRecordedSeconds(stageId: string, sinceMs: number): Promise<number> {
  const span = await longestSpanSince(stageId, sinceMs);
  return span ? (span.endMs - span.startMs) / 1000 : 0;
}

/** The recording's video: paused or not, its time, and where its playback started. */
function recordingPlayback(page: Page) {
  return page.evaluate(() => {
    const video = document.querySelector('[data-testid="recording-video"]');
    if (!(video instanceof HTMLVideoElement)) return null;
    return {
      paused: video.paused,
      currentTime: video.currentTime,
      playedFrom: video.played.length > 0 ? video.played.start(0) : null,
    };
  });
}

/** Whether the video at `selector` has its metadata, or the error the browser gave instead. */
function mediaState(page: Page, selector: string) {
  return page.evaluate((wanted) => {
    const video = document.querySelector(wanted);
    if (!(video instanceof HTMLVideoElement)) return { metadata: false, error: null };
    return {
      metadata: video.readyState >= HTMLMediaElement.HAVE_METADATA,
      error: video.error?.message ?? null,
    };
  }, selector);
}

/** Clicks the Play button of the longest span listed for `stageId`; resolves with its start. */
function playLongestSpan(page: Page, stageId: string): Promise<string | null> {
  return page.evaluate((id) => {
    const buttons = [
      ...document.querySelectorAll(
        `section[aria-labelledby="rec-${id}"] button[aria-label^="Play "]`,
      ),
    ];
    const spans = buttons.map((button) => {
      const [, start = '', end = ''] =
        /(\d\d:\d\d:\d\d)–(\d\d:\d\d:\d\d)/.exec(button.getAttribute('aria-label') ?? '') ?? [];
      const seconds = Date.parse(`1970-01-01T${end}Z`) - Date.parse(`1970-01-01T${start}Z`);
      return { button, start, seconds };
    });
    const longest = spans.sort((a, b) => b.seconds - a.seconds)[0];
    if (!(longest?.button instanceof HTMLElement)) return null;
    longest.button.click();
    return longest.start;
  }, stageId);
}

/** The capture time (time strip) of the frame the video at `selector` shows now. */
async function stampMs(page: Page, selector: string): Promise<number> {
  return (await frameStampIn(page, selector))?.captureTimeMs ?? Number.NaN;
}

/**
 * The live player's rewind (docs/product.md#rewind, decision 0088) while N743AS is recorded: ←
 * shows the picture 5 s older than the live one, in Firefox's own Media Source Extensions; the
 * scrubber's right end plays on through the 4 s segments, within two segments of live (Firefox
 * reads WebM segments once finished: rewind-timeline.ts#growingSegmentPlays); End is live.
 */
async function rewindsInPlace(page: Page, since: number): Promise<void> {
  const live = named('Live video from N743AS');
  const recorded = '[data-testid="rewind-video"]';
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
  // At least 6 s recorded: the rewind's step of 5 s lands where it was asked to.
  await expect
    .poll(() => recordedFor('N743AS', since), { timeout: 20_000, message: '6 s recorded' })
    .toBeGreaterThanOrEqual(6_000);
  const liveAt = await stampMs(page, live);
  const landing = await firstFrameStampAfter(page, recorded, () =>
    page.keyboard.press('ArrowLeft'),
  );
  await expectPlayingIn(page, recorded);
  expect((await frameStampIn(page, recorded))?.streamId).toBe('N743AS');
  expect(landing?.streamId).toBe('N743AS');
  const backMs = liveAt - (landing?.captureTimeMs ?? Number.NaN);
  console.log(`Firefox, ←: the recorded picture ${backMs} ms older than the live one at the key`);
  // 5 s back, or the newest finished segment's end where that is older (docs/product.md#rewind:
  // in Firefox a WebM recording's newest instant is up to two 4 s segments behind).
  expect(backMs).toBeGreaterThan(3_500);
  expect(backMs).toBeLessThan(8_500);

  await page.evaluate(() => {
    const scrubber = document.querySelector('input[type="range"]') as HTMLInputElement;
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    setValue.call(scrubber, scrubber.max);
    scrubber.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  await expectPlayingIn(page, recorded);
  const behindMs = (await stampMs(page, live)) - (await stampMs(page, recorded));
  console.log(`Firefox, the scrubber's right end, 6 s on: ${behindMs} ms behind live`);
  expect(behindMs).toBeLessThan(9_000);

  await page.keyboard.press('End');
  await expect.poll(() => page.$(recorded)).toBeNull();
  await expect
    .poll(() => page.$eval('[data-testid="rewind-behind"]', (element) => element.textContent))
    .toBe('Live');
  await expectPlayingIn(page, live);
}

test('a recording of N743AS plays back in Firefox on the Recordings page, its pixels naming N743AS, the flight data of the instant shown over it, and from an instant its URL names', async () => {
  test.setTimeout(90_000);
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir)
    throw new Error('E2E_DATA_DIR is not set: run the suite through playwright.config.ts');
  const page = await firefoxPage(firefox());
  await stayOrSignIn(page);

  // A synthetic camera is recorded while someone watches it: Firefox watches N743AS while the
  // recorder `npm start` runs (off in the suite's product) records it, until a span of 3 s from
  // now on is listed.
  const since = Date.now();
  // Segments of 4 s, the recorder's own: the rewind reads the one being written as it grows.
  const recorder = await startRecorder(dataDir, 4_000);
  try {
    await page.goto(appUrl('/player/N743AS'));
    await expectPlayingIn(page, named('Live video from N743AS'));
    await expect
      .poll(async () => (await localStage.stats()).whepSessions, {
        timeout: 20_000,
        message: "the recorder's WHEP session on N743AS",
      })
      .toBeGreaterThanOrEqual(1);
    await expect
      .poll(() => longestRecordedSeconds('N743AS', since), {
        timeout: 30_000,
        message: 'a span of N743AS of 3 s listed',
      })
      .toBeGreaterThanOrEqual(3);
    await rewindsInPlace(page, since);
  } finally {
    await recorder.stop();
  }

  await page.goto(appUrl('/home'));
  await clickWhenThere(page, 'a[href="/recordings"]');
  await expect.poll(() => pathOf(page)).toBe('/recordings');
  await page.waitForSelector('section[aria-labelledby="rec-N743AS"] button[aria-label^="Play "]');
  const start = await playLongestSpan(page, 'N743AS');
  expect(start, 'a span listed for N743AS').not.toBeNull();
  const video = '[data-testid="recording-video"]';
  await page.waitForSelector(named(`Recording of N743AS from ${start} UTC`));
  // Play plays: the button's press alone, no second one on the video's control.
  // Its metadata first, or the browser's refusal: a refusal fails here at once, with its error.
  await expect
    .poll(
      async () => {
        const state = await mediaState(page, video);
        return state.metadata || state.error !== null;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  expect(await mediaState(page, video)).toMatchObject({ metadata: true, error: null });
  await expectPlayingIn(page, video);
  // Recorded at the camera's top layer (decision 0084), whatever Firefox's link got.
  expect(
    await page.$eval(video, (element) => {
      const played = element as HTMLVideoElement;
      return `${played.videoWidth}x${played.videoHeight}`;
    }),
  ).toBe('640x360');
  // The recorded pixels: N743AS's time strip, its frame counter moving on as it plays.
  await expect.poll(async () => (await frameStampIn(page, video))?.streamId).toBe('N743AS');
  const first = (await frameStampIn(page, video))?.frame ?? 0;
  await expect
    .poll(async () => (await frameStampIn(page, video))?.frame ?? 0)
    .toBeGreaterThan(first + 10);
  expect((await videoProgress(page, video))?.time).toBeGreaterThan(0);
  // Over it, the flight data of the instant shown, not of now (decision 0096): the recorded
  // frame's own time strip says when it was captured.
  await expect
    .poll(async () => hudAgreesWithFrame('N743AS', await page.evaluate(readHudInPage)), {
      message: "the recording's HUD agrees with N743AS's flight at the frame shown, in Firefox",
      timeout: 15_000,
    })
    .toBe(true);

  // A moment's URL (docs/product.md#recordings) opens the page playing from that instant.
  const span = await longestSpanSince('N743AS', since);
  if (!span) throw new Error('the span played above is gone');
  const atMs = Math.ceil(span.startMs / 1000) * 1000 + 1000;
  const offsetS = (atMs - span.startMs) / 1000;
  const t = new Date(atMs).toISOString().replace('.000Z', 'Z');
  await page.goto(appUrl(`/recordings/N743AS?t=${t}`));
  await expect
    .poll(
      async () => {
        const now = await recordingPlayback(page);
        return now !== null && !now.paused && now.currentTime > offsetS + 0.2;
      },
      { message: `the recording playing on from ${offsetS} s`, timeout: 20_000 },
    )
    .toBe(true);
  const playedFrom = (await recordingPlayback(page))?.playedFrom ?? -1;
  // From the instant, or where the recording has no picture at it (seconds a loaded recorder did
  // not get, decision 0109), from its next picture.
  const playableFrom = await page.evaluate((at) => {
    const { buffered } = document.querySelector<HTMLVideoElement>(
      '[data-testid="recording-video"]',
    )!;
    for (let index = 0; index < buffered.length; index += 1) {
      if (buffered.end(index) > at) return Math.max(at, buffered.start(index));
    }
    return at;
  }, offsetS);
  expect(
    Math.abs(playedFrom - playableFrom),
    `played from ${playedFrom} s, the recording's first picture from ${offsetS} s at ${playableFrom} s`,
  ).toBeLessThan(0.5);
});

test.describe('a WHEP player on another origin', () => {
  let playerPage: ServedPage;

  test.beforeAll(async () => {
    playerPage = await servePlayerPage();
  });

  test.afterAll(async () => {
    await playerPage.close();
  });

  test("Eyevinn's WHEP player plays N743AS's synthetic camera in Firefox, and its session ends with it", async () => {
    const page = await firefoxPage(firefox());
    const { whepUrl, token } = subscribeToken('N743AS');
    await page.goto(playerPage.url);
    const options: Parameters<WhepPlayerPage['start']>[0] = { endpoint: whepUrl, token };
    await page.evaluate((given) => window.whepPlayer.start(given), options);
    await expectPlayingIn(page, 'video');
    await expect.poll(async () => (await frameStampIn(page, 'video'))?.streamId).toBe('N743AS');
    await expect.poll(async () => (await localStage.stats()).whepSessions).toBe(1);
    const first = (await frameStampIn(page, 'video'))?.frame ?? 0;
    await expect
      .poll(async () => (await frameStampIn(page, 'video'))?.frame ?? 0)
      .toBeGreaterThan(first + 10);
    await page.evaluate(() => window.whepPlayer.stop());
    await expect.poll(async () => (await localStage.stats()).whepSessions).toBe(0);
  });
});

test("the local SDK hands N953AS's flight data over in Firefox, as IVS's in-band messages, each true to its instant, and the player's HUD shows it", async () => {
  const page = await firefoxPage(firefox());
  await stayOrSignIn(page);
  await page.goto(appUrl('/home'));
  const received = await page.evaluate(readInBandMessagesInPage, {
    stageId: 'N953AS',
    wanted: 4,
  });
  expectTrueFlightData('N953AS', received);

  // The player draws it over the picture, where the aircraft was at the frame on screen.
  await page.goto(appUrl('/player/N953AS'));
  await expectPlayingIn(page, 'video');
  await frameStampIn(page, 'video'); // the page kit, which reads the frame's time strip
  await expect
    .poll(async () => hudAgreesWithFrame('N953AS', await page.evaluate(readHudInPage)), {
      message: "the HUD agrees with N953AS's flight at the shown frame, in Firefox",
      timeout: 15_000,
    })
    .toBe(true);
});
