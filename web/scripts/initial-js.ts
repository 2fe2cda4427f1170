/**
 * The web app's initial JS: what a visitor's browser must fetch before the first page can run.
 * That is the entry chunk (`<script type="module">` in the built index.html) plus every chunk the
 * page preloads (`<link rel="modulepreload">`), each gzipped at level 9 (what a server would send
 * precompressed) and summed. Chunks loaded later (a lazily loaded page) are not in it, and neither
 * is the stage SDK (`/sdk/stage.js`), a classic script the API serves, not part of the bundle.
 *
 * One measure for the bench (`bench/parts/bundle.ts`) and the build's test
 * (`web/src/production-build.test.ts`); a size is deterministic, so the test can hold the budget.
 * KB here is 1024 bytes, as in docs/benchmarks.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** docs/benchmarks.md: the initial JS is at most 100 KB gzip. */
export const INITIAL_JS_BUDGET_BYTES = 100 * 1024;

export interface InitialJsFile {
  /** As index.html names it, e.g. `/assets/index-D1HVJ0co.js`. */
  url: string;
  gzipBytes: number;
}

export interface InitialJs {
  /** The entry chunk first, then the preloaded chunks in the page's order. */
  files: InitialJsFile[];
  gzipBytes: number;
}

const moduleScript = /<script\b(?=[^>]*\btype="module")[^>]*\bsrc="([^"]+)"/g;
const modulePreload = /<link\b(?=[^>]*\brel="modulepreload")[^>]*\bhref="([^"]+)"/g;

/** The initial JS of the build in `distDir` (the output of `vite build`). */
export function measureInitialJs(distDir: string): InitialJs {
  const html = readFileSync(join(distDir, 'index.html'), 'utf8');
  const urls = [...html.matchAll(moduleScript), ...html.matchAll(modulePreload)].map(
    (match) => match[1] ?? '',
  );
  if (urls.length === 0) throw new Error(`${distDir}/index.html loads no module script`);
  const files = urls.map((url) => {
    // A URL of the build is rooted at its base ('/'); its file is under distDir.
    const bytes = readFileSync(join(distDir, new URL(url, 'http://app.invalid/').pathname));
    return { url, gzipBytes: gzipSync(bytes, { level: 9 }).length };
  });
  return { files, gzipBytes: files.reduce((sum, file) => sum + file.gzipBytes, 0) };
}
