/**
 * A browser publisher for e2e/whip-publish.spec.ts: the WHIP URL and token an operator gets from
 * `npm run publish-token`, and a page on an origin of its own (not the app's) that publishes with
 * a third-party WHIP client (whip-publisher-page.ts, bundled here by esbuild).
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '@tailcam/harness/product';
import { E2E_PORT } from './environment';

/** The publisher page's port: its own origin, moved with E2E_PORT like the suite's other ports. */
export const WHIP_PUBLISHER_PORT = E2E_PORT + 21;

/** What `npm run publish-token -- STREAM_ID` prints for the suite's product. */
export function publishToken(streamId: string): { whipUrl: string; token: string } {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir)
    throw new Error('E2E_DATA_DIR is not set: run the suite through playwright.config.ts');
  const result = spawnSync('npm', ['run', '--silent', 'publish-token', '--', streamId], {
    cwd: ROOT,
    env: { ...process.env, STAGE_PROVIDER: 'local', DATA_DIR: dataDir, PORT: String(E2E_PORT) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const whipUrl = /^WHIP_URL=(\S+)$/m.exec(result.stdout)?.[1];
  const token = /^PUBLISH_TOKEN=(\S+)$/m.exec(result.stdout)?.[1];
  if (result.status !== 0 || !whipUrl || !token) {
    throw new Error(`npm run publish-token failed:\n${result.stdout}\n${result.stderr}`);
  }
  return { whipUrl, token };
}

/** Serves the publisher page on 127.0.0.1:WHIP_PUBLISHER_PORT until `close`. */
export async function servePublisherPage(): Promise<{ url: string; close: () => Promise<void> }> {
  const bundle = await build({
    entryPoints: [join(ROOT, 'e2e', 'support', 'whip-publisher-page.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]?.text ?? '';
  const html =
    '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>WHIP publisher</title>' +
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
    server.listen(WHIP_PUBLISHER_PORT, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${WHIP_PUBLISHER_PORT}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
