/**
 * Congestion feedback to a browser publisher (decision 0066): Chromium publishes a grainy 1280x720
 * canvas over WHIP on loopback, and the stage's transport-wide CC feedback lets its congestion
 * controller find the link: its estimate passes 1.5 Mbit/s and its encoder's target follows past
 * 1.2 Mbit/s. Without the feedback both stayed near 0.6 Mbit/s. The encoder holds 720p
 * (`maintain-resolution`): left to itself, Chromium may start at 320x180 from its 300 kbit/s
 * start rate and send no more than that size allows until it scales up, which would be the
 * encoder's figure, not the feedback's. The bounds are loose (two loaded cores, beside the rest of
 * the suite); the bench's `publish` part prints the figures, Chromium's default among them.
 */
import { chromiumLaunchOptions } from '@tailcam/harness/chromium';
import {
  describeSample,
  serveCanvasPublisherPage,
  startCanvasPublisher,
  stopCanvasPublisher,
  watchCanvasPublisher,
} from '@tailcam/harness/canvas-publisher';
import { expect, test } from './support/fixtures';
import { localStage } from './support/local-stage';
import { publishToken, WHIP_PUBLISHER_PORT } from './support/whip-publisher';

const STREAM = 'N953AS';
const ESTIMATE_KBPS = 1500;
const TARGET_KBPS = 1200;

test.use({ launchOptions: chromiumLaunchOptions() });

test(`a Chromium WHIP publisher of a grainy 720p canvas on loopback is let past ${ESTIMATE_KBPS} kbit/s, its encoder past ${TARGET_KBPS}`, async ({
  page,
}) => {
  test.setTimeout(90_000);
  const publisherPage = await serveCanvasPublisherPage(WHIP_PUBLISHER_PORT);
  try {
    await page.goto(publisherPage.url);
    await startCanvasPublisher(page, {
      ...publishToken(STREAM),
      grain: true,
      holdResolution: true,
    });
    await expect
      .poll(async () => (await localStage.stats()).stages[STREAM]?.publisher?.kind)
      .toBe('encoder');
    const samples = await watchCanvasPublisher(page, {
      maxMs: 30_000,
      until: (sample) =>
        (sample.estimateKbps ?? 0) >= ESTIMATE_KBPS && (sample.targetKbps ?? 0) > TARGET_KBPS,
    });
    for (const sample of samples) console.log(describeSample(sample));
    const reached = (kbps: (typeof samples)[number]['estimateKbps'][]) =>
      Math.max(0, ...kbps.map((value) => value ?? 0));
    // 30 s where the bench's figure is under 10. Chromium's first probes usually lift its
    // estimate past 5 Mbit/s within a second; when the stage, busy beside the rest of the suite,
    // reads a probe's packets late they measure low, and the estimate climbs by GCC's ~8 % a
    // second instead (CI, 2026-11-27: 319 kbit/s at 1.2 s, 1252 at 20 s). Without the feedback
    // it stayed near 600 kbit/s.
    expect(reached(samples.map((sample) => sample.estimateKbps))).toBeGreaterThanOrEqual(
      ESTIMATE_KBPS,
    );
    expect(reached(samples.map((sample) => sample.targetKbps))).toBeGreaterThan(TARGET_KBPS);
  } finally {
    await stopCanvasPublisher(page).catch(() => undefined);
    await publisherPage.close();
  }
  await expect
    .poll(async () => (await localStage.stats()).stages[STREAM]?.publisher?.kind, {
      timeout: 20_000,
    })
    .toBe('camera');
});
