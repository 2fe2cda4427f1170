/**
 * Flight data in the recording, in step (docs/product.md#flight-data, decision 0096), in Chromium
 * on the suite's shared product, with the recorder started beside it for this spec alone: while a
 * viewer watches N953AS's synthetic camera, the recorder keeps its MISB ST 0601 packets beside
 * the segments; the API serves them; played back on the Recordings page, the HUD over the
 * recording shows, at each instant sought, where the aircraft was when the frame shown was
 * captured (its own time strip), not where it is now.
 */
import { installPageKit } from '@tailcam/harness/page-scripts';
import { decodeFlightData } from '@tailcam/protocol/flight-data/klv';
import { readFlightRecords } from '@tailcam/protocol/flight-data/recorded';
import { hudAgreement, readHudInPage } from './support/flight-data';
import { expect, expectVideoPlaying, loginToken, signInByApi, test } from './support/fixtures';
import { longestSpan, longestSpanTimes, seek, startRecorder } from './support/recordings';

const STAGE = 'N953AS';
const RECORD_MS = 8_000;

test('a recording of N953AS plays back with the HUD of the instant shown', async ({ page }) => {
  test.setTimeout(90_000);
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir)
    throw new Error('E2E_DATA_DIR is not set: run the suite through playwright.config.ts');
  const recorder = await startRecorder(dataDir);
  const recordedFromMs = Date.now();
  try {
    await signInByApi(page);
    await page.goto(`/player/${STAGE}`);
    await expectVideoPlaying(page);
    // The recorder writes while a person watches (decision 0084): a span of RECORD_MS.
    await expect
      .poll(
        async () => {
          const span = await longestSpanTimes(page, loginToken(), STAGE).catch(() => undefined);
          return span && span.endMs > recordedFromMs ? span.endMs - span.startMs : 0;
        },
        { timeout: 45_000, message: `a span of ${STAGE} recorded as it is watched` },
      )
      .toBeGreaterThanOrEqual(RECORD_MS);
  } finally {
    await recorder.stop();
  }

  const span = await longestSpanTimes(page, loginToken(), STAGE);
  await test.step('the API serves each segment’s flight data: 0601 packets of N953AS', async () => {
    const listed = (await (
      await page.request.get('/api/recordings', {
        headers: { authorization: `Bearer ${loginToken()}` },
      })
    ).json()) as {
      aircraft: {
        stageId: string;
        spans: { span: string; startMs: number; segments: { name: string }[] }[];
      }[];
    };
    const listedSpan = listed.aircraft
      .find((entry) => entry.stageId === STAGE)
      ?.spans.find((each) => each.startMs === span.startMs);
    // A segment's data is named by its file's offset: `{offset}-{duration}.webm` → `{offset}.flight`.
    const name = listedSpan?.segments[1]?.name.replace(/-\d+\.(webm|mp4)$/, '.flight');
    expect(name).toMatch(/^\d{10}\.flight$/);
    const answer = await page.request.get(`/api/recordings/${STAGE}/${listedSpan?.span}/${name}`, {
      headers: { authorization: `Bearer ${loginToken()}` },
    });
    expect(answer.status()).toBe(200);
    expect(answer.headers()['cache-control']).toBe('private, no-store');
    const records = readFlightRecords(new Uint8Array(await answer.body()));
    expect(records.length).toBeGreaterThanOrEqual(1);
    for (const record of records) {
      const packet = decodeFlightData(record.payload);
      expect(packet.ok && packet.telemetry.tailNumber).toBe(STAGE);
    }
  });

  await page.goto(`/recordings/${STAGE}`);
  const longest = await longestSpan(page, STAGE);
  await longest.button.click();
  const video = page.getByTestId('recording-video');
  await expect
    .poll(() => video.evaluate((v: HTMLVideoElement) => !v.paused && v.currentTime > 0.3))
    .toBe(true);
  await video.evaluate((v: HTMLVideoElement) => v.pause());
  await installPageKit(page);
  const hud = page.getByTestId('flight-hud');

  const shown: number[] = [];
  for (const seconds of [2, 6]) {
    await test.step(`at ${seconds} s, the figures of the frame shown`, async () => {
      await seek(page, seconds);
      await expect(hud).toBeVisible();
      await expect(hud).toHaveAttribute('data-status', 'fresh');
      await expect
        .poll(() => hudAgreement(page, STAGE), {
          message: `the HUD agrees with ${STAGE}'s flight at the recorded frame`,
          timeout: 10_000,
        })
        .toBe('agrees');
      const reading = await page.evaluate(readHudInPage);
      shown.push(reading.frameCaptureTimeMs ?? 0);
    });
  }
  // Recorded instants, seconds apart, and long before now: not the live figures.
  expect(shown[1]! - shown[0]!).toBeGreaterThan(2_500);
  expect(Date.now() - shown[1]!).toBeGreaterThan(3_000);
});
