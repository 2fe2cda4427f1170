/**
 * Live thumbnails on /home (docs/product.md#stream-selection): each card shows its own aircraft's
 * picture of now, read back from the synthetic camera's time strip in the image; a browser
 * publishing over WHIP (the camera its page draws: 4:3, one colour the test chose) shows on its card at the first ask
 * once on air (decision 0106: not the camera's picture of a moment before until the next refresh); a
 * press on a card opens its player though the picture arrives while the button is down; and no
 * thumbnail is given without a login token.
 */
import type { Page } from '@playwright/test';
import { installPageKit } from '@tailcam/harness/page-scripts';
import { whipPublisher } from '@tailcam/harness/third-party-pages';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { expect, expectVideoPlaying, loginToken, signInByApi, test } from './support/fixtures';
import { isDrawnPicture, publishToken, servePublisherPage } from './support/whip-publisher';

interface CardPicture {
  src: string;
  width: number;
  height: number;
  /** The time strip's payload, null when the picture has none. */
  strip: { captureTimeMs: number; streamIndex: number } | null;
  /** Share of the pixels in the drawn publisher's colour (harness/src/drawn-picture.ts). */
  drawnColour: number;
  readAtMs: number;
}

/** The picture on `streamId`'s card now, read from its pixels (null while the placeholder shows). */
async function cardPicture(page: Page, streamId: string): Promise<CardPicture | null> {
  await installPageKit(page);
  return page.evaluate(async (alt) => {
    const image = document.querySelector<HTMLImageElement>(`img[alt="${alt}"]`);
    if (!image) return null;
    await image.decode().catch(() => undefined);
    const canvas = document.createElement('canvas');
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext('2d');
    if (!context || canvas.width === 0) return null;
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height);
    return {
      src: image.src,
      width: canvas.width,
      height: canvas.height,
      strip: window.TailcamPageKit.decodeTimeStrip(pixels),
      drawnColour: window.TailcamPageKit.shareOfColour(pixels.data),
      readAtMs: Date.now(),
    };
  }, `${streamId} thumbnail`);
}

test("each card shows its own aircraft's picture of now, through a blob: URL", async ({ page }) => {
  await signInByApi(page);
  await page.goto('/home');
  for (const [index, streamId] of STREAM_IDS.entries()) {
    await expect
      .poll(async () => (await cardPicture(page, streamId))?.strip?.streamIndex, {
        timeout: 15_000,
      })
      .toBe(index);
    const seen = await cardPicture(page, streamId);
    expect(seen?.src).toMatch(/^blob:/);
    expect(seen?.width).toBeGreaterThanOrEqual(320);
    expect((seen?.width ?? 0) / (seen?.height ?? 1)).toBeCloseTo(16 / 9, 2);
    // Drawn by the camera at most 15 s before the page shows it.
    expect((seen?.readAtMs ?? 0) - (seen?.strip?.captureTimeMs ?? 0)).toBeLessThan(15_000);
  }
});

// A person's press (80 ms down) on a card whose picture arrived meanwhile opened
// nothing. Chromium sends no click when the element pressed is replaced before the release, and
// the placeholder → picture swap did replace it; the press had started the join (decision 0057),
// which then played in no player.
test("a press on a card opens its player though the card's picture arrives during it", async ({
  page,
}) => {
  const STREAM = 'N743AS';
  await signInByApi(page);
  await page.goto('/home');
  // The camera's picture exists (so the held answer below is a picture, not "none yet").
  await expect(page.getByRole('img', { name: `${STREAM} thumbnail` })).toBeVisible({
    timeout: 15_000,
  });

  let asked: () => void = () => undefined;
  const requested = new Promise<void>((resolve) => (asked = resolve));
  let answer: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (answer = resolve));
  await page.route(`**/api/thumbnails/${STREAM}`, async (route) => {
    const response = await route.fetch();
    asked();
    await released;
    await route.fulfill({ response }).catch(() => undefined);
  });
  await page.reload();
  await requested;
  const card = page.getByRole('link', { name: new RegExp(STREAM) });
  const placeholder = card.getByRole('img', { name: `${STREAM} placeholder image` });
  await expect(placeholder).toBeVisible();
  const box = await placeholder.boundingBox();
  if (!box) throw new Error('the card has no picture box');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  answer(); // the picture replaces the placeholder under the pressed button
  await expect(card.getByRole('img', { name: `${STREAM} thumbnail` })).toBeVisible();
  await page.mouse.up();

  await expect(page).toHaveURL(new RegExp(`/player/${STREAM}$`));
  await expectVideoPlaying(page);
});

test('a thumbnail request without a valid login token is refused', async ({ request }) => {
  expect((await request.get('/api/thumbnails/N743AS')).status()).toBe(401);
  const forged = await request.get('/api/thumbnails/N743AS', {
    headers: { Authorization: `Bearer ${loginToken()}x` },
  });
  expect(forged.status()).toBe(401);
  const signedIn = await request.get('/api/thumbnails/N743AS', {
    headers: { Authorization: `Bearer ${loginToken()}` },
  });
  expect(signedIn.headers()['cache-control']).toBe('private, no-store');
});

test("a WHIP publisher's picture shows on its card once it is on air", async ({
  page,
  context,
}) => {
  test.setTimeout(60_000);
  const STREAM = 'N953AS';
  const publisherPage = await servePublisherPage();
  try {
    const { whipUrl, token } = publishToken(STREAM);
    const publisher = await context.newPage();
    await publisher.goto(publisherPage.url);
    const client = whipPublisher(publisher);
    await client.start({ endpoint: whipUrl, token, videoCodec: 'video/H264' });
    await expect
      .poll(async () => (await client.state()).connectionState, { timeout: 20_000 })
      .toBe('connected');

    await signInByApi(page);
    await page.goto('/home');
    // The drawn camera: 4:3, nearly all its colour, no time strip.
    await expect
      .poll(async () => isDrawnPicture(await cardPicture(page, STREAM)), { timeout: 25_000 })
      .toBe(true);
    await client.stop();
    await publisher.close();
  } finally {
    await publisherPage.close();
  }
});
