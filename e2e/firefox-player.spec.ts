/**
 * The player in Firefox (Debian's Firefox ESR over WebDriver BiDi, e2e/support/firefox.ts) against
 * the suite's product: signing in through the form, each aircraft playing (its pixels name it),
 * Watch all's three tiles, the live stats against the time strip, the connection quality on the
 * clean loopback link, and the player's look at 375, 900 and 1440 px (screenshots:
 * e2e/.artifacts/screenshots/firefox-player-*.png, copied to docs/screenshots).
 *
 * One Firefox for the file; the first test signs in through the form, the others keep that
 * sign-in (or, run alone, store the run's login token).
 */
import { mkdirSync } from 'node:fs';
import { pageKitScript } from '@tailcam/harness/page-scripts';
import { median } from '@tailcam/harness/stats';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import {
  appUrl,
  clickWhenThere,
  expectPlayingIn,
  firefoxForFile,
  firefoxPage,
  frameStampIn,
  isShown,
  named,
  pathOf,
  setViewportSize,
  signInThroughFormIn,
  skipWithoutFirefox,
  stayOrSignIn,
  type Page,
} from './support/firefox';
import { arrive, countJoins, joinsOf } from '@tailcam/harness/arrival';
import { expect, test } from './support/fixtures';
import { localStage } from './support/local-stage';

skipWithoutFirefox();
const firefox = firefoxForFile({ width: 1280, height: 900 });

/** The file's Firefox tab, signed in (through the form by the first test). */
async function signedInPage(): Promise<Page> {
  const page = await firefoxPage(firefox());
  await stayOrSignIn(page);
  return page;
}

const videoOf = (streamId: string) => named(`Live video from ${streamId}`);

/** The connection-quality badges' names, in document order. */
function badges(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-quality]')].map(
      (badge) => badge.getAttribute('aria-label') ?? '',
    ),
  );
}

/** The live stats overlay's rows, label to value. */
function statsRows(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const rows: Record<string, string> = {};
    for (const term of document.querySelectorAll(
      'section[aria-labelledby="live-stats-title"] dt',
    )) {
      rows[term.textContent ?? ''] = term.nextElementSibling?.textContent ?? '';
    }
    return rows;
  });
}

test('a viewer signs in through the form in Firefox and plays N743AS, whose pixels say N743AS', async () => {
  const page = await firefoxPage(firefox());
  await signInThroughFormIn(page);
  await clickWhenThere(page, named('N743AS: Click to watch stream'));
  await expect.poll(() => pathOf(page)).toBe('/player/N743AS');
  await expectPlayingIn(page, videoOf('N743AS'));
  expect(
    await page.evaluate((selector) => {
      const video = document.querySelector(selector);
      return video instanceof HTMLVideoElement && video.muted && video.controls;
    }, videoOf('N743AS')),
    'muted, with controls',
  ).toBe(true);
  await expect
    .poll(async () => (await frameStampIn(page, videoOf('N743AS')))?.streamId)
    .toBe('N743AS');
  await expect.poll(async () => (await localStage.stats()).stages.N743AS?.peerConnections).toBe(1);
});

test('N953AS and N954AS each play their own aircraft in Firefox, with the same sign-in', async () => {
  const page = await signedInPage();
  for (const streamId of ['N953AS', 'N954AS']) {
    await page.goto(appUrl(`/player/${streamId}`));
    await expectPlayingIn(page, videoOf(streamId));
    await expect
      .poll(async () => (await frameStampIn(page, videoOf(streamId)))?.streamId)
      .toBe(streamId);
  }
});

test("in Firefox, the pointer's first move on /home joins the three streams on standby, and a click plays its own without a join more", async () => {
  const page = await signedInPage();
  const script = await page.evaluateOnNewDocument(countJoins);
  try {
    // The pointer off every card first: the tests before left it where a card draws.
    await page.mouse.move(0, 0);
    await page.goto(appUrl('/home'));
    await page.waitForSelector(named('N953AS: Click to watch stream'), { visible: true });
    // Long enough for joins on standby, had anything started them (150 ms, then a token each).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await page.evaluate(joinsOf), 'no join before a sign of life').toEqual({
      made: 0,
      open: 0,
    });
    await arrive(page.mouse);
    await expect.poll(() => page.evaluate(joinsOf)).toEqual({ made: 3, open: 3 });

    await page.click(named('N953AS: Click to watch stream'));
    await expect.poll(() => pathOf(page)).toBe('/player/N953AS');
    await expectPlayingIn(page, videoOf('N953AS'));
    await expect
      .poll(async () => (await frameStampIn(page, videoOf('N953AS')))?.streamId)
      .toBe('N953AS');
    // The player plays the standby join of its stream; the other two left with the page.
    await expect.poll(() => page.evaluate(joinsOf)).toEqual({ made: 3, open: 1 });
  } finally {
    await page.removeScriptToEvaluateOnNewDocument(script.identifier);
  }
});

test("the connection quality reads 'Good' in Firefox on the clean loopback link", async () => {
  const page = await signedInPage();
  await page.goto(appUrl('/player/N953AS'));
  await expectPlayingIn(page, videoOf('N953AS'));
  await expect.poll(() => badges(page)).toEqual(['Connection quality: Good']);
});

test('the live stats in Firefox show every figure Firefox reports, and their glass to glass agrees with the time strip within 20 ms (or half of it)', async () => {
  const page = await signedInPage();
  await page.goto(appUrl('/player/N743AS'));
  const video = videoOf('N743AS');
  await expectPlayingIn(page, video);
  await page.keyboard.press('i');
  await expect
    .poll(async () => (await statsRows(page))['Glass to glass'] ?? '', { timeout: 10_000 })
    .toMatch(/^\d+(\.\d)? ms$/);
  // For 5 s: each frame's glass to glass read back from its time strip (the truth), and once a
  // second what the overlay says. The page kit decodes the strip; every other frame is enough.
  await page.evaluate(await pageKitScript());
  const run = await page.evaluate(async (selector) => {
    const element = document.querySelector(selector);
    if (!(element instanceof HTMLVideoElement)) throw new Error('no video');
    const videoElement = element;
    const strip: { glassToGlassMs: number; frame: number }[] = [];
    const overlay: Record<string, string>[] = [];
    const readOverlay = () => {
      const rows: Record<string, string> = {};
      for (const term of document.querySelectorAll(
        'section[aria-labelledby="live-stats-title"] dt',
      )) {
        rows[term.textContent ?? ''] = term.nextElementSibling?.textContent ?? '';
      }
      overlay.push(rows);
    };
    const started = performance.now();
    let calls = 0;
    const onFrame = (_now: number, metadata: VideoFrameCallbackMetadata) => {
      if (performance.now() - started > 5_000) return;
      calls += 1;
      if (calls % 2 === 0) {
        const stamp = window.TailcamPageKit.frameStamp(videoElement);
        if (stamp) {
          strip.push({
            glassToGlassMs:
              performance.timeOrigin + metadata.expectedDisplayTime - stamp.captureTimeMs,
            frame: stamp.frame,
          });
        }
      }
      videoElement.requestVideoFrameCallback(onFrame);
    };
    videoElement.requestVideoFrameCallback(onFrame);
    const reader = setInterval(readOverlay, 1_000);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    clearInterval(reader);
    return { strip, overlay, elapsedMs: performance.now() - started };
  }, video);

  const last = run.overlay.at(-1) ?? {};
  console.log(`Firefox live stats: ${JSON.stringify(last)}`);
  expect(last.Resolution).toBe('640 × 360');
  expect(last.Codec).toBe('VP8');
  expect(last['Packet loss']).toMatch(/^\d+\.\d %$/);
  expect(last.Bitrate).toMatch(/^\d+ kbit\/s$/);
  expect(last['Frame rate']).toMatch(/^\d+ decoded, \d+ shown$/);
  for (const label of ['Jitter', 'Jitter buffer', 'Decode time']) {
    expect(last[label], label).toMatch(/^\d+(\.\d)? ms$/);
  }
  // Firefox has no round trip for a receive-only connection: it says so, never a made-up figure.
  expect(last['Round trip']).toMatch(/^(–|\d+(\.\d)? ms)$/);

  const stripGlassToGlass = median(run.strip.map((frame) => frame.glassToGlassMs));
  const measured = run.overlay
    .map((rows) => /^([\d.]+) ms$/.exec(rows['Glass to glass'] ?? '')?.[1])
    .filter((value): value is string => value !== undefined)
    .map(Number);
  const estimated = run.overlay
    .map((rows) => /^([\d.]+) ms$/.exec(rows['Glass to glass (estimate)'] ?? '')?.[1])
    .filter((value): value is string => value !== undefined)
    .map(Number);
  const shown = run.overlay
    .map((rows) => /, (\d+) shown$/.exec(rows['Frame rate'] ?? '')?.[1])
    .filter((value): value is string => value !== undefined)
    .map(Number);
  const stripShownPerSecond =
    (new Set(run.strip.map((frame) => frame.frame)).size * 2) / (run.elapsedMs / 1000);
  console.log(
    `Firefox glass to glass: overlay ${JSON.stringify(measured)} (estimates ${JSON.stringify(estimated)}), ` +
      `time strip median ${stripGlassToGlass.toFixed(1)} ms over ${run.strip.length} frames; ` +
      `frames shown: overlay ${JSON.stringify(shown)}, strip ~${stripShownPerSecond.toFixed(1)}/s`,
  );
  expect(run.strip.length, 'frames read back from their pixels').toBeGreaterThan(30);
  // A figure not marked estimate is a measurement: it must agree with the pixels. An estimate
  // (a second whose frames carried no capture time) is the receive side only: a floor.
  expect(measured.length + estimated.length).toBeGreaterThan(2);
  if (measured.length > 0) {
    expect(Math.abs(median(measured) - stripGlassToGlass)).toBeLessThanOrEqual(
      Math.max(20, stripGlassToGlass / 2),
    );
  }
  for (const estimate of estimated) expect(estimate).toBeLessThanOrEqual(stripGlassToGlass);
  expect(shown.length).toBeGreaterThan(2);
  const shownMean = shown.reduce((sum, value) => sum + value, 0) / shown.length;
  expect(shownMean).toBeGreaterThan(5);
  await page.keyboard.press('i');
  await expect.poll(() => isShown(page, 'section[aria-labelledby="live-stats-title"]')).toBe(false);
});

test('Watch all in Firefox plays all three aircraft, each tile its own aircraft with its own connection quality', async () => {
  const page = await signedInPage();
  await page.goto(appUrl('/home'));
  await clickWhenThere(page, named('Watch all streams at once'));
  await expect.poll(() => pathOf(page)).toBe('/watch-all');
  for (const streamId of STREAM_IDS) {
    await expectPlayingIn(page, videoOf(streamId));
    await expect
      .poll(async () => (await frameStampIn(page, videoOf(streamId)))?.streamId)
      .toBe(streamId);
  }
  const stats = await localStage.stats();
  for (const streamId of STREAM_IDS) {
    expect(stats.stages[streamId]?.peerConnections, `${streamId}'s viewers`).toBe(1);
  }
  await expect.poll(() => badges(page)).toEqual(STREAM_IDS.map(() => 'Connection quality: Good'));
});

test('the player in Firefox, its live stats open, is whole at 375, 900 and 1440 px', async () => {
  const page = await signedInPage();
  await page.goto(appUrl('/player/N743AS'));
  const video = videoOf('N743AS');
  await expectPlayingIn(page, video);
  // With the live stats open: Firefox's figures are in the pictures too.
  await page.keyboard.press('i');
  await expect.poll(() => isShown(page, 'section[aria-labelledby="live-stats-title"]')).toBe(true);
  mkdirSync('e2e/.artifacts/screenshots', { recursive: true });
  for (const width of [375, 900, 1440]) {
    await setViewportSize(page, width, width === 375 ? 812 : 900);
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), {
        message: `horizontal overflow at ${width} px`,
      })
      .toBeLessThanOrEqual(0);
    const box = await page.evaluate((selector) => {
      const rect = document.querySelector(selector)?.getBoundingClientRect();
      return rect && { left: rect.left, right: rect.right, height: rect.height };
    }, video);
    expect(box?.left, `the video starts inside at ${width} px`).toBeGreaterThanOrEqual(0);
    expect(box?.right, `the video ends inside at ${width} px`).toBeLessThanOrEqual(width);
    expect(box?.height).toBeGreaterThan(100);
    await expectPlayingIn(page, video);
    await expect.poll(() => badges(page)).toEqual(['Connection quality: Good']);
    await page.screenshot({ path: `e2e/.artifacts/screenshots/firefox-player-${width}.png` });
  }
});
