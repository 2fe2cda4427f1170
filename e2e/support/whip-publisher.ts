/**
 * Third-party clients for the e2e specs: the URL and token an operator gets from `npm run
 * publish-token` (WHIP) or `npm run subscribe-token` (WHEP) for the suite's product, and the
 * harness's pages on origins of their own (not the app's) that publish with Eyevinn's WHIP client
 * or play with Eyevinn's WHEP player, on ports moved with E2E_PORT.
 */
import type { Locator } from '@playwright/test';
import type { PictureReading } from '@tailcam/harness/drawn-picture';
import { operatorToken } from '@tailcam/harness/operator-token';
import { installPageKit, type ServedPage } from '@tailcam/harness/page-scripts';
import {
  servePlayerPage as servePlayer,
  servePublisherPage as servePublisher,
} from '@tailcam/harness/third-party-pages';
import { E2E_PORT } from './environment';

/** The pages' ports: origins of their own, moved with E2E_PORT like the suite's other ports. */
export const WHIP_PUBLISHER_PORT = E2E_PORT + 21;
export const WHEP_PLAYER_PORT = E2E_PORT + 22;

/** The suite's product as the operator's commands see it. */
function suiteEnvironment(): NodeJS.ProcessEnv {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir)
    throw new Error('E2E_DATA_DIR is not set: run the suite through playwright.config.ts');
  return { ...process.env, STAGE_PROVIDER: 'local', DATA_DIR: dataDir, PORT: String(E2E_PORT) };
}

/** What `npm run publish-token -- STREAM_ID` prints for the suite's product. */
export function publishToken(streamId: string): { whipUrl: string; token: string } {
  const { url, token } = operatorToken('publish-token', streamId, suiteEnvironment());
  return { whipUrl: url, token };
}

/** What `npm run subscribe-token -- STREAM_ID` prints for the suite's product. */
export function subscribeToken(streamId: string): { whepUrl: string; token: string } {
  const { url, token } = operatorToken('subscribe-token', streamId, suiteEnvironment());
  return { whepUrl: url, token };
}

/** Serves the WHIP publisher page on 127.0.0.1:WHIP_PUBLISHER_PORT until `close`. */
export function servePublisherPage(): Promise<ServedPage> {
  return servePublisher(WHIP_PUBLISHER_PORT);
}

/** Serves the WHEP player page on 127.0.0.1:WHEP_PLAYER_PORT until `close`. */
export function servePlayerPage(): Promise<ServedPage> {
  return servePlayer(WHEP_PLAYER_PORT);
}

export { isDrawnPicture } from '@tailcam/harness/drawn-picture';

/** The size of the frame `video` shows now and how much of it is the drawn publisher's colour. */
export async function picture(video: Locator): Promise<PictureReading | null> {
  await installPageKit(video.page());
  return video.evaluate((video: HTMLVideoElement) => {
    const image = window.TailcamPageKit.videoPixels(video);
    if (!image) return null;
    return {
      width: image.width,
      height: image.height,
      drawnColour: window.TailcamPageKit.shareOfColour(image.data),
    };
  });
}
