/**
 * Flight data in the picture (docs/flight-data.md, decision 0094), in Chromium, on the shared
 * product: the synthetic camera's flight, as MISB ST 0601 packets the stage carries with its
 * frames, reaches the local SDK's `STAGE_STREAM_SEI_MESSAGE_RECEIVED` as IVS's `{ uuid, payload }`,
 * and each packet is where the aircraft was at the instant it names; the player draws it over the
 * picture (the HUD agrees with the frame's own time strip), `h` hides it, and each Watch all tile
 * shows altitude and speed.
 */
import { installPageKit } from '@tailcam/harness/page-scripts';
import { flightAt } from '@tailcam/protocol/flight-data/flight';
import {
  expectTrueFlightData,
  hudAgreement,
  readHudInPage,
  readInBandMessagesInPage,
  type InBandMessagesRead,
} from './support/flight-data';
import { expect, expectVideoPlaying, signInByApi, test } from './support/fixtures';

const STAGE = 'N953AS';

test('the SDK hands the camera’s flight data over as IVS’s in-band messages, each true to its instant', async ({
  page,
}) => {
  await signInByApi(page);
  await page.goto('/home');
  const received: InBandMessagesRead = await page.evaluate(readInBandMessagesInPage, {
    stageId: STAGE,
    wanted: 4,
  });
  expectTrueFlightData(STAGE, received);
});

test('the player draws the flight data over the picture, where the aircraft was at that frame, and h hides it', async ({
  page,
}) => {
  await signInByApi(page);
  await page.goto(`/player/${STAGE}`);
  await expectVideoPlaying(page);
  await installPageKit(page);
  const hud = page.getByTestId('flight-hud');
  await expect(hud).toBeVisible({ timeout: 10_000 });
  await expect(hud).toContainText(/ft/);
  await expect(hud).toContainText(/kt/);

  // Twice, seconds apart: the figures follow the flight, frame by frame.
  const readings = [];
  for (const reading of [1, 2]) {
    if (reading === 2) await page.waitForTimeout(3_000);
    await expect
      .poll(() => hudAgreement(page, STAGE), {
        message: `the HUD agrees with ${STAGE}'s flight at the shown frame`,
        timeout: 10_000,
      })
      .toBe('agrees');
    readings.push(await page.evaluate(readHudInPage));
  }
  const [first, second] = readings;
  const moved = (at: number | undefined) => flightAt(STAGE, at ?? 0);
  const truthChanged =
    Math.round(moved(first?.frameCaptureTimeMs).altitudeFt / 10) !==
      Math.round(moved(second?.frameCaptureTimeMs).altitudeFt / 10) ||
    Math.round(moved(first?.frameCaptureTimeMs).groundSpeedKt) !==
      Math.round(moved(second?.frameCaptureTimeMs).groundSpeedKt);
  if (truthChanged) {
    expect([second?.altitudeFt, second?.groundSpeedKt]).not.toEqual([
      first?.altitudeFt,
      first?.groundSpeedKt,
    ]);
  }

  const toggle = page.getByRole('button', { name: 'Flight data' });
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('h');
  await expect(hud).toBeHidden();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await toggle.click();
  await expect(hud).toBeVisible();
});

test('each Watch all tile shows its aircraft’s altitude and speed', async ({ page }) => {
  await signInByApi(page);
  await page.goto('/watch-all');
  const huds = page.getByTestId('flight-hud');
  await expect(huds).toHaveCount(3, { timeout: 20_000 });
  for (const hud of await huds.all()) {
    await expect(hud).toContainText(/\d ft/);
    await expect(hud).toContainText(/\d kt/);
  }
});
