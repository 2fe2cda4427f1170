/**
 * Recordings played back (issue 30's proof, short; docs/product.md#recordings, decisions 0072 and
 * 0073), on the suite's shared product with the recorder `npm start` runs started beside it for
 * this spec alone (the product runs without one, so that other specs count only viewers): for a
 * few seconds, at once, a viewer watches N743AS's synthetic camera (VP8, simulcast) and Chromium
 * publishes a canvas with the time strip over WHIP to N953AS in H.264 and to N954AS in VP8 (no
 * viewer: a real publisher is always recorded). Each of the three recordings is listed, plays in
 * the Recordings page through Media Source Extensions, and a seek lands on the frame whose time
 * strip says so, within 67 ms (two frames at 30 fps). e2e/recordings.spec.ts does 30 s and
 * 20 s, the page's look and keys, with TAILCAM_LONG_TESTS=1.
 */
import type { Page } from '@playwright/test';
import { chromiumLaunchOptions } from '@tailcam/harness/chromium';
import {
  serveCanvasPublisherPage,
  startCanvasPublisher,
  stopCanvasPublisher,
} from '@tailcam/harness/canvas-publisher';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { E2E_BASE_URL } from './support/environment';
import { expect, expectVideoPlaying, loginToken, signInByApi, test } from './support/fixtures';
import { localStage } from './support/local-stage';
import { longestSpan, seekError, startRecorder } from './support/recordings';
import { publishToken, WHIP_PUBLISHER_PORT } from './support/whip-publisher';

const RECORD_S = 5;
const SEEK_S = 3;
/** What each aircraft is recorded from, and the container and codec its span must have. */
const CASES = [
  { stageId: 'N743AS', from: 'the synthetic camera', mimeType: /^video\/webm; codecs="vp8/ },
  { stageId: 'N953AS', from: 'WHIP H.264', codec: 'H264', mimeType: /^video\/mp4; codecs="avc1/ },
  { stageId: 'N954AS', from: 'WHIP VP8', codec: 'VP8', mimeType: /^video\/webm; codecs="vp8/ },
] as const;

test.use({ launchOptions: chromiumLaunchOptions() });

interface ListedSpan {
  mimeType: string;
  startMs: number;
  endMs: number;
}

async function listedSpans(page: Page, stageId: string): Promise<ListedSpan[]> {
  const response = await page.request.get(`${E2E_BASE_URL}/api/recordings`, {
    headers: { authorization: `Bearer ${loginToken()}` },
  });
  expect(response.status()).toBe(200);
  const body = (await response.json()) as {
    aircraft: { stageId: string; spans: ListedSpan[] }[];
  };
  return body.aircraft.find((entry) => entry.stageId === stageId)?.spans ?? [];
}

test('the synthetic camera and WHIP publishers in H.264 and VP8 are recorded, and each plays back with a seek landing on its frame', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error('E2E_DATA_DIR is not set: run the suite through playwright.config.ts');
  const recorder = await startRecorder(dataDir);
  const publisherPage = await serveCanvasPublisherPage(WHIP_PUBLISHER_PORT);
  const publishers: Page[] = [];
  try {
    await signInByApi(page);
    await page.goto('/player/N743AS');
    await expectVideoPlaying(page);
    for (const { stageId, codec } of CASES.filter((c) => 'codec' in c)) {
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
    }
    await page.waitForTimeout(RECORD_S * 1000 + 1500);
  } finally {
    for (const publisher of publishers) await stopCanvasPublisher(publisher).catch(() => undefined);
    await Promise.all(publishers.map((publisher) => publisher.close()));
    await publisherPage.close();
    // A clean stop finishes the segments being written.
    await recorder.stop();
  }

  await page.goto('/recordings');
  for (const { stageId, from, mimeType } of CASES) {
    await test.step(`${stageId}, recorded from ${from}`, async () => {
      const spans = await listedSpans(page, stageId);
      expect(spans.map((span) => span.mimeType)).toContainEqual(expect.stringMatching(mimeType));
      const longest = await longestSpan(page, stageId);
      expect(longest.seconds).toBeGreaterThanOrEqual(RECORD_S - 2);
      await longest.button.click();
      await expect(page.getByTestId('recording-video')).toHaveAccessibleName(
        `Recording of ${stageId} from ${longest.start} UTC`,
      );
      const error = await seekError(page, SEEK_S);
      console.log(`${stageId} (${from}): a seek to ${SEEK_S} s shows a frame ${error} ms off`);
      expect(Math.abs(error)).toBeLessThanOrEqual(67);
    });
  }
});
