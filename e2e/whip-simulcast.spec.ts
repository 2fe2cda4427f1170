/**
 * Simulcast in, end to end: Chromium publishes a camera its page draws to N954AS over WHIP (VP8, then
 * H.264) as three encodings (`sendEncodings` q, h and f, each half the size of the next, on
 * Amazon IVS's bitrates and frame rates), through a third-party WHIP client on a page of another
 * origin; the stage lists the three layers with their rates in `/_stats`, and a viewer signed in
 * to the app plays the highest of them, the next one down while the highest is paused, and the
 * synthetic camera again when the publisher stops.
 */
import { whipPublisher, type SimulcastOptions } from '@tailcam/harness/third-party-pages';
import { expect, expectVideoPlaying, playerVideo, signInByApi, test } from './support/fixtures';
import { localStage, readFrameStamp } from './support/local-stage';
import {
  isDrawnPicture,
  picture,
  publishToken,
  servePublisherPage,
} from './support/whip-publisher';

const STREAM = 'N954AS';

/**
 * 960x720: 4:3 as the drawn camera's other sizes, and large enough for libwebrtc to send three
 * layers (it sends two below 960x540). Start at the three layers' sum.
 */
const SIMULCAST: SimulcastOptions = {
  width: 960,
  height: 720,
  startKbps: 2_600,
  encodings: [
    { rid: 'q', scaleResolutionDownBy: 4, maxBitrate: 200_000, maxFramerate: 15 },
    { rid: 'h', scaleResolutionDownBy: 2, maxBitrate: 700_000, maxFramerate: 20 },
    { rid: 'f', maxBitrate: 1_700_000, maxFramerate: 30 },
  ],
};

let publisherPage: Awaited<ReturnType<typeof servePublisherPage>>;

test.beforeAll(async () => {
  publisherPage = await servePublisherPage();
});

test.afterAll(async () => {
  await publisherPage.close();
});

for (const codec of ['VP8', 'H264'] as const) {
  test(`a browser publishing three ${codec} simulcast encodings over WHIP goes on air on ${STREAM}: /_stats lists the three layers with their rates, the viewer plays the highest and falls back while it is paused`, async ({
    page,
    context,
  }) => {
    test.setTimeout(120_000);
    const { whipUrl, token } = publishToken(STREAM);
    const publisher = await context.newPage();
    await publisher.goto(publisherPage.url);
    const client = whipPublisher(publisher);
    await client.start({
      endpoint: whipUrl,
      token,
      videoCodec: `video/${codec}`,
      simulcast: SIMULCAST,
    });
    await expect
      .poll(async () => (await client.state()).connectionState, { timeout: 20_000 })
      .toBe('connected');

    // Three layers arriving, each measured: sizes (from their key frames), bitrates, frame rates.
    await expect
      .poll(
        async () => {
          const shown = (await localStage.stats()).stages[STREAM]?.publisher;
          if (shown?.kind !== 'encoder') return [];
          return shown.layers
            .filter((layer) => layer.bitrate > 0 && layer.frameRate > 0)
            .map((layer) => `${layer.rid} ${layer.width}x${layer.height}`);
        },
        { timeout: 30_000, message: 'three layers arriving at the stage' },
      )
      .toEqual(['f 960x720', 'h 480x360', 'q 240x180']);
    // Rates past their start (a 2 s window): loose floors that tell flowing from stuck on a loaded
    // 2-core machine, and never above what each layer was asked for. The drawn picture is one
    // colour and a bar: an encoder sends its smallest layer in 10–20 kbit/s, so the bitrate's
    // floor is only above nothing.
    const rates = async () => (await localStage.stats()).stages[STREAM]?.publisher?.layers ?? [];
    await expect
      .poll(
        async () => (await rates()).map((layer) => layer.frameRate >= 5 && layer.bitrate >= 5_000),
        { timeout: 20_000, message: 'each layer at 5 fps and 5 kbit/s at least' },
      )
      .toEqual([true, true, true]);
    const [f, h, q] = await rates();
    console.log(`Chromium's simulcast at the stage: ${JSON.stringify([f, h, q])}`);
    expect(f?.frameRate).toBeLessThanOrEqual(33);
    expect(h?.frameRate).toBeLessThanOrEqual(23);
    expect(q?.frameRate).toBeLessThanOrEqual(17);

    // The viewer in the app: the publisher's picture, at the highest layer's size.
    await signInByApi(page);
    await page.goto(`/player/${STREAM}`);
    await expectVideoPlaying(page);
    await expect
      .poll(async () => picture(playerVideo(page)), { timeout: 20_000 })
      .toMatchObject({ width: 960, height: 720 });
    expect(isDrawnPicture(await picture(playerVideo(page)))).toBe(true);

    // The highest stops (as an encoder short of bandwidth pauses it): the viewer falls back to the
    // next one down, at its key frame, and goes back up when it comes again, playing throughout.
    const width = async () => (await picture(playerVideo(page)))?.width;
    const paused = Date.now();
    await client.setEncodingActive('f', false);
    await expect.poll(width, { timeout: 15_000, message: 'the viewer on h' }).toBe(480);
    const down = Date.now() - paused;
    await expectVideoPlaying(page);
    const resumed = Date.now();
    await client.setEncodingActive('f', true);
    // Back at once: the layer the publisher paused is taken again at its first key frame as it
    // returns (0.16–0.52 s in 39 runs of this machine's logs, both codecs, loaded or not). With
    // VP8's picture numbers passed on as each layer numbers them, Chromium took 3.0–8.1 s in 9 of
    // 24 VP8 runs, its picture standing still until its own key frame request after libwebrtc's
    // 3 s wait (decision 0107): the bound tells that from a move.
    await expect.poll(width, { timeout: 30_000, message: 'the viewer on f again' }).toBe(960);
    const up = Date.now() - resumed;
    console.log(`${codec}: on h ${down} ms after f paused, on f ${up} ms after f resumed`);
    expect(up).toBeLessThan(2_500);
    await expectVideoPlaying(page);

    await client.stop();
    await publisher.close();
    // The synthetic camera again, in the same player.
    await expect
      .poll(async () => (await readFrameStamp(page))?.streamId, { timeout: 20_000 })
      .toBe(STREAM);
    await expectVideoPlaying(page);
  });
}
