/**
 * A real camera in, end to end: a third-party WHIP client from npm (@eyevinn/whip-web-client), on
 * a page of another origin, publishes the camera its page draws to N954AS with the URL and token
 * `npm run publish-token` prints; a viewer signed in to the app sees that picture instead of the
 * synthetic camera's, and the synthetic camera's again when the publisher stops, in the same
 * player, with no 'Connection lost' and no reload. Once with H.264, once with VP8.
 *
 * The two pictures are told apart by their pixels: the synthetic camera's frames carry the time
 * strip (16:9), the publisher's page draws a 4:3 field of one colour the test chose, with no strip
 * (harness/src/drawn-picture.ts).
 *
 * And with flight data: the page writes the aircraft's 0601 packets into its H.264 as IVS's SEI
 * messages (an Encoded Transform, harness/src/page/sei-sender.ts); they reach the viewers' SDK
 * untouched and the player's HUD shows them (docs/deployment.md).
 */
import type { Response } from '@playwright/test';
import {
  countLoads,
  expect,
  expectVideoPlaying,
  playerVideo,
  recordWhenShown,
  signInByApi,
  test,
} from './support/fixtures';
import {
  expectHudShowsSent,
  expectSdkReceivesSent,
  SentFlightData,
} from './support/encoder-flight-data';
import { localStage, readFrameStamp } from './support/local-stage';
import { whipPublisher } from '@tailcam/harness/third-party-pages';
import {
  isDrawnPicture,
  picture,
  publishToken,
  servePublisherPage,
} from './support/whip-publisher';

const STREAM = 'N954AS';

let publisherPage: Awaited<ReturnType<typeof servePublisherPage>>;
/** What the operator's command printed, once for both tests (it takes seconds to run). */
let publishing: ReturnType<typeof publishToken>;

test.beforeAll(async () => {
  publisherPage = await servePublisherPage();
  publishing = publishToken(STREAM);
});

test.afterAll(async () => {
  await publisherPage.close();
});

for (const codec of ['H264', 'VP8'] as const) {
  test(`a browser publishing ${codec} over WHIP from another origin takes over ${STREAM} for its viewer, and the synthetic camera comes back when it stops`, async ({
    page,
    context,
  }) => {
    test.setTimeout(120_000);
    await signInByApi(page);
    const connectionLostShown = await recordWhenShown(page, 'Connection lost');
    const loads = countLoads(page);
    await page.goto(`/player/${STREAM}`);
    await expectVideoPlaying(page);
    await expect.poll(async () => (await readFrameStamp(page))?.streamId).toBe(STREAM);
    // The criterion tells the synthetic camera apart.
    expect(isDrawnPicture(await picture(playerVideo(page)))).toBe(false);

    const { whipUrl, token } = publishing;
    expect(whipUrl).toMatch(new RegExp(`/stage/whip/${STREAM}$`));
    const publisher = await context.newPage();
    const whipAnswers: Response[] = [];
    publisher.on('response', (response) => {
      if (response.url().includes('/stage/whip/')) whipAnswers.push(response);
    });
    await publisher.goto(publisherPage.url);
    expect(new URL(publisher.url()).origin).not.toBe(new URL(page.url()).origin);
    expect(new URL(publisher.url()).origin).not.toBe(new URL(whipUrl).origin);
    const client = whipPublisher(publisher);
    await client.start({ endpoint: whipUrl, token, videoCodec: `video/${codec}` });
    await expect
      .poll(async () => (await client.state()).connectionState, { timeout: 20_000 })
      .toBe('connected');
    const state = await client.state();
    expect(state.offeredVideo).toBe(codec);
    expect(state.resource).toMatch(new RegExp(`/stage/whip/${STREAM}/[\\w-]+$`));
    const post = whipAnswers.find((answer) => answer.request().method() === 'POST');
    expect(post?.status()).toBe(201);
    expect(await post?.request().headerValue('origin')).toBe(new URL(publisherPage.url).origin);
    await expect
      .poll(async () => (await localStage.stats()).stages[STREAM]?.publisher)
      .toMatchObject({ kind: 'encoder', video: `video/${codec}` });

    // The viewer sees the drawn picture: no time strip, its shape and its colour.
    await expect
      .poll(async () => isDrawnPicture(await picture(playerVideo(page))), { timeout: 20_000 })
      .toBe(true);
    expect(await readFrameStamp(page)).toBeNull();
    await expectVideoPlaying(page);

    await client.stop();
    await expect
      .poll(() => whipAnswers.find((answer) => answer.request().method() === 'DELETE')?.status())
      .toBe(200);
    await publisher.close();

    // The synthetic camera again, in the same player.
    await expect
      .poll(async () => (await readFrameStamp(page))?.streamId, { timeout: 20_000 })
      .toBe(STREAM);
    expect(isDrawnPicture(await picture(playerVideo(page)))).toBe(false);
    await expectVideoPlaying(page);
    await expect
      .poll(async () => (await localStage.stats()).stages[STREAM]?.publisher?.kind)
      .toBe('camera');
    expect(await connectionLostShown()).toBe(false);
    expect(loads()).toBe(1);
  });
}

test(`a browser publishing H.264 with flight data in SEI (an Encoded Transform) has it reach ${STREAM}'s viewers untouched, as IVS's in-band messages, and the HUD shows it`, async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await signInByApi(page);
  await page.goto(`/player/${STREAM}`);
  await expectVideoPlaying(page);

  const publisher = await context.newPage();
  const warnings: string[] = [];
  publisher.on('console', (message) => {
    if (message.type() === 'warning') warnings.push(message.text());
  });
  await publisher.goto(publisherPage.url);
  const client = whipPublisher(publisher);
  const { whipUrl, token } = publishing;
  await client.start({
    endpoint: whipUrl,
    token,
    videoCodec: 'video/H264',
    inBandMessaging: true,
  });
  await expect
    .poll(async () => (await localStage.stats()).stages[STREAM]?.publisher)
    .toMatchObject({ kind: 'encoder', video: 'video/H264' });

  // IVS's rules: refused with a warning, and the promise resolves.
  await client.insertSeiMessage('ab'.repeat(1_025));
  await client.insertSeiMessage('ab', { repeatCount: 31 });
  await expect
    .poll(() => warnings)
    .toEqual(['insertSeiMessage: PAYLOAD_SIZE_INVALID', 'insertSeiMessage: INVALID_REPEAT_COUNT']);

  // The aircraft's flight data once a second, each on 3 frames, as its telemetry comes.
  const flightData = new SentFlightData(STREAM);
  flightData.start((payload) => client.insertSeiMessage(payload, { repeatCount: 2 }));
  try {
    await expect
      .poll(async () => isDrawnPicture(await picture(playerVideo(page))), { timeout: 20_000 })
      .toBe(true);
    const shownAt = Date.now();
    await expectSdkReceivesSent(context, STREAM, flightData);
    await expectHudShowsSent(page, STREAM, flightData, shownAt);
  } finally {
    flightData.stop();
  }
  await client.stop();
  await publisher.close();
});
