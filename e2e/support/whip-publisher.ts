/**
 * Third-party clients for the e2e specs: the URL and token an operator gets from `npm run
 * publish-token` (WHIP) or `npm run subscribe-token` (WHEP), and pages on origins of their own (not
 * the app's) that publish with a third-party WHIP client (whip-publisher-page.ts) or play with a
 * third-party WHEP player (whep-player-page.ts), bundled here by esbuild.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { build } from 'esbuild';
import { ROOT } from '@tailcam/harness/product';
import { E2E_PORT } from './environment';

/** The pages' ports: origins of their own, moved with E2E_PORT like the suite's other ports. */
export const WHIP_PUBLISHER_PORT = E2E_PORT + 21;
export const WHEP_PLAYER_PORT = E2E_PORT + 22;

/** What `npm run publish-token -- STREAM_ID` prints for the suite's product. */
export function publishToken(streamId: string): { whipUrl: string; token: string } {
  const { url, token } = operatorToken('publish-token', streamId, 'WHIP_URL', 'PUBLISH_TOKEN');
  return { whipUrl: url, token };
}

/** What `npm run subscribe-token -- STREAM_ID` prints for the suite's product. */
export function subscribeToken(streamId: string): { whepUrl: string; token: string } {
  const { url, token } = operatorToken('subscribe-token', streamId, 'WHEP_URL', 'SUBSCRIBE_TOKEN');
  return { whepUrl: url, token };
}

function operatorToken(command: string, streamId: string, urlName: string, tokenName: string) {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir)
    throw new Error('E2E_DATA_DIR is not set: run the suite through playwright.config.ts');
  const result = spawnSync('npm', ['run', '--silent', command, '--', streamId], {
    cwd: ROOT,
    env: { ...process.env, STAGE_PROVIDER: 'local', DATA_DIR: dataDir, PORT: String(E2E_PORT) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const url = new RegExp(`^${urlName}=(\\S+)$`, 'm').exec(result.stdout)?.[1];
  const token = new RegExp(`^${tokenName}=(\\S+)$`, 'm').exec(result.stdout)?.[1];
  if (result.status !== 0 || !url || !token) {
    throw new Error(`npm run ${command} failed:\n${result.stdout}\n${result.stderr}`);
  }
  return { url, token };
}

/** Serves the publisher page on 127.0.0.1:WHIP_PUBLISHER_PORT until `close`. */
export function servePublisherPage(): Promise<{ url: string; close: () => Promise<void> }> {
  return servePage('whip-publisher-page.ts', WHIP_PUBLISHER_PORT, 'WHIP publisher');
}

/** Serves the player page on 127.0.0.1:WHEP_PLAYER_PORT until `close`. */
export function servePlayerPage(): Promise<{ url: string; close: () => Promise<void> }> {
  return servePage('whep-player-page.ts', WHEP_PLAYER_PORT, 'WHEP player');
}

async function servePage(
  entry: string,
  port: number,
  title: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  const bundle = await build({
    entryPoints: [join(ROOT, 'e2e', 'support', entry)],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]?.text ?? '';
  const html =
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title}</title>` +
    `<video autoplay muted playsinline></video><script>${script}</script>`;
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface Picture {
  width: number;
  height: number;
  /** Share of the pixels in the fake camera's greens (its background and its pacman). */
  green: number;
}

/** The size of the frame `video` shows now and how green it is. */
export function picture(video: Locator): Promise<Picture | null> {
  return video.evaluate((video: HTMLVideoElement) => {
    if (video.videoWidth === 0) return null;
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) return null;
    context.drawImage(video, 0, 0);
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let green = 0;
    for (let index = 0; index < data.length; index += 4) {
      const [r = 0, g = 0, b = 0] = [data[index], data[index + 1], data[index + 2]];
      if (g > 90 && g > r + 50 && g > b + 50) green += 1;
    }
    return { width: canvas.width, height: canvas.height, green: green / (data.length / 4) };
  });
}

/** Chromium's fake camera: 4:3, nearly all green (the synthetic camera's cabin is 16:9, grey). */
export function isFakeCamera(seen: Picture | null): boolean {
  if (!seen) return false;
  return Math.abs(seen.width / seen.height - 4 / 3) < 0.02 && seen.green > 0.8;
}
