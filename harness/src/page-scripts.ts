/**
 * Browser scripts written as typed TypeScript (src/page/…, or a caller's own file), bundled by
 * esbuild into one classic script, and the small servers that give third-party pages an origin of
 * their own. Page code is never JavaScript in strings, nor a function Playwright serialises with
 * the test's own transform helpers in it.
 */
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { build } from 'esbuild';
import { ROOT } from './root';

// The kit's type, and with it `window.TailcamPageKit` for code that runs in a page.
export type { PageKit, Region } from './page/page-kit';

const bundles = new Map<string, Promise<string>>();

/** `entry` (a path from the repository's root) as one script for a page; built once a process. */
export function bundleForPage(entry: string): Promise<string> {
  let bundle = bundles.get(entry);
  if (bundle === undefined) {
    bundle = build({
      entryPoints: [join(ROOT, entry)],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    }).then((result) => result.outputFiles[0]?.text ?? '');
    bundles.set(entry, bundle);
  }
  return bundle;
}

/** The page kit (page/page-kit.ts) as a script, e.g. for `addInitScript`. */
export function pageKitScript(): Promise<string> {
  return bundleForPage('harness/src/page/page-kit.ts');
}

/**
 * Adds `window.TailcamPageKit` to the page as it is now (through DevTools, so the page's CSP does
 * not apply); again after each navigation.
 */
export async function installPageKit(page: Page): Promise<void> {
  await page.evaluate(await pageKitScript());
}

export interface ServedPage {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves a page holding one <video> and the bundled `entry` on 127.0.0.1:`port` (0: any free
 * port) until `close`; and each of `workers` (a path on the page's origin: its entry) bundled.
 */
export async function servePage(
  entry: string,
  title: string,
  port = 0,
  workers: Record<string, string> = {},
): Promise<ServedPage> {
  const script = await bundleForPage(entry);
  const workerScripts = new Map(
    await Promise.all(
      Object.entries(workers).map(
        async ([path, workerEntry]) => [path, await bundleForPage(workerEntry)] as const,
      ),
    ),
  );
  const html =
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title}</title>` +
    `<video autoplay muted playsinline></video><script>${script}</script>`;
  const server = createServer((request, response) => {
    const workerScript = workerScripts.get(request.url ?? '');
    if (request.method === 'GET' && workerScript !== undefined) {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(workerScript);
      return;
    }
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
  const address = server.address();
  const listening = typeof address === 'object' && address !== null ? address.port : port;
  return {
    url: `http://127.0.0.1:${listening}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
