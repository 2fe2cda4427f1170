/**
 * Any player out: a third-party WHEP player from npm (Eyevinn's @eyevinn/webrtc-player), on a
 * page of another origin than the app's, plays an aircraft with what `npm run subscribe-token`
 * prints (docs/decisions/0055-whep-playback.md): the synthetic camera of N743AS (its time strip
 * names it), and a real publisher's picture on N954AS (Eyevinn's WHIP client publishing the camera its
 * page draws, as in whip-publish.spec.ts).
 */
import type { Page } from '@playwright/test';
import { whepPlayer, whipPublisher } from '@tailcam/harness/third-party-pages';
import { expect, test } from './support/fixtures';
import { localStage, readFrameStamp } from './support/local-stage';
import {
  isDrawnPicture,
  picture,
  publishToken,
  servePlayerPage,
  servePublisherPage,
  subscribeToken,
} from './support/whip-publisher';

let playerPage: Awaited<ReturnType<typeof servePlayerPage>>;
let publisherPage: Awaited<ReturnType<typeof servePublisherPage>>;

test.beforeAll(async () => {
  playerPage = await servePlayerPage();
  publisherPage = await servePublisherPage();
});

test.afterAll(async () => {
  await playerPage.close();
  await publisherPage.close();
});

async function play(page: Page, streamId: string): Promise<number> {
  const { whepUrl, token } = subscribeToken(streamId);
  expect(whepUrl).toMatch(new RegExp(`/stage/whep/${streamId}$`));
  await page.goto(playerPage.url);
  const started = Date.now();
  await whepPlayer(page).start({ endpoint: whepUrl, token });
  await expect
    .poll(() => page.locator('video').evaluate((video: HTMLVideoElement) => video.videoWidth), {
      timeout: 20_000,
    })
    .toBeGreaterThan(0);
  return Date.now() - started;
}

test('a WHEP player on another origin plays the synthetic camera of N743AS', async ({ page }) => {
  const firstFrameMs = await play(page, 'N743AS');
  await expect.poll(async () => (await readFrameStamp(page))?.streamId).toBe('N743AS');
  await expect.poll(async () => (await localStage.stats()).whepSessions).toBe(1);
  console.log(`WHEP player (Eyevinn): POST → first frame of N743AS in ${firstFrameMs} ms`);
  // Its frames keep coming: the strip's frame counter moves on.
  const first = (await readFrameStamp(page))?.frame ?? 0;
  await expect
    .poll(async () => (await readFrameStamp(page))?.frame ?? 0)
    .toBeGreaterThan(first + 10);
  await whepPlayer(page).stop();
  await expect.poll(async () => (await localStage.stats()).whepSessions).toBe(0);
});

test("a WHEP player plays a real publisher's picture on N954AS", async ({ page, context }) => {
  test.setTimeout(90_000);
  const publishing = publishToken('N954AS');
  const publisher = await context.newPage();
  await publisher.goto(publisherPage.url);
  const client = whipPublisher(publisher);
  await client.start({
    endpoint: publishing.whipUrl,
    token: publishing.token,
    videoCodec: 'video/VP8',
  });
  await expect
    .poll(async () => (await localStage.stats()).stages.N954AS?.publisher?.kind, {
      timeout: 20_000,
    })
    .toBe('encoder');
  try {
    await play(page, 'N954AS');
    await expect
      .poll(async () => isDrawnPicture(await picture(page.locator('video'))), { timeout: 20_000 })
      .toBe(true);
    expect(await readFrameStamp(page)).toBeNull();
  } finally {
    const state = await client.state();
    expect(state.connectionState).toBe('connected');
    await client.stop();
    await publisher.close();
  }
  // The publisher left: the stage ends the WHEP session, and the camera is on air again.
  await expect.poll(async () => (await localStage.stats()).whepSessions).toBe(0);
  await expect
    .poll(async () => (await localStage.stats()).stages.N954AS?.publisher?.kind)
    .toBe('camera');
});
