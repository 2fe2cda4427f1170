/**
 * The production build, made once with the project's own Vite config into a temporary directory:
 * nothing in it hands a visitor the app's source (no source map, no link to one), its text files
 * come with their compressed forms (scripts/precompress.ts), and its initial JS stays within the
 * budget, measured as the bench measures it (scripts/initial-js.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INITIAL_JS_BUDGET_BYTES, measureInitialJs } from '../scripts/initial-js';
import { MIN_COMPRESS_BYTES } from '../scripts/precompress';

const webRoot = join(import.meta.dirname, '..');
/** docs/product.md#routes: the pages a visit starts on come with the first load. */
const FIRST_LOAD_PAGES = ['sign-in', 'home', 'player'];
/** Route modules that are not pages of their own. */
const NOT_PAGES = ['protected-layout'];
const outDir = mkdtempSync(join(tmpdir(), 'tailcam-web-build-'));

beforeAll(async () => {
  // Vitest runs with NODE_ENV=test, which would make Vite bundle React's development build and
  // the development JSX runtime; `npm run build` runs with none, which Vite takes as production.
  vi.stubEnv('NODE_ENV', 'production');
  try {
    await build({
      root: webRoot,
      configFile: join(webRoot, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'silent',
      // The manifest says which module became which chunk: the lazily loaded pages' test reads it.
      build: { outDir, emptyOutDir: true, manifest: true },
    });
  } finally {
    vi.unstubAllEnvs();
  }
}, 120_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('the production build (npm run build -w web)', () => {
  it('emits no source map and no sourceMappingURL', () => {
    const files = readdirSync(outDir, { recursive: true, encoding: 'utf8' });
    expect(files.filter((file) => file.endsWith('.js'))).not.toEqual([]);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of files.filter((name) => /\.(js|css)$/.test(name))) {
      expect(readFileSync(join(outDir, file), 'utf8'), file).not.toContain('sourceMappingURL');
    }
  });

  it('writes a brotli and a gzip form of every script, style sheet and page over 1 KB, and of nothing smaller', () => {
    const files = readdirSync(outDir, { recursive: true, encoding: 'utf8' });
    const texts = files.filter((file) => /\.(js|css|html)$/.test(file));
    expect(texts).toContain('index.html');
    for (const file of texts) {
      const body = readFileSync(join(outDir, file));
      if (body.length < MIN_COMPRESS_BYTES) {
        expect(files, file).not.toContain(`${file}.br`);
        continue;
      }
      const brotli = readFileSync(join(outDir, `${file}.br`));
      expect(brotliDecompressSync(brotli).equals(body), file).toBe(true);
      expect(gunzipSync(readFileSync(join(outDir, `${file}.gz`))).equals(body), file).toBe(true);
      // Worth sending: text shrinks to well under half.
      expect(brotli.length, file).toBeLessThan(body.length / 2);
    }
  });

  it('keeps the initial JS (entry chunk plus modulepreloads, gzip -9) within 100 KB of 1024 bytes', () => {
    const initial = measureInitialJs(outDir);
    expect(initial.files[0]?.url).toMatch(/^\/assets\/index-[\w-]+\.js$/);
    expect(initial.gzipBytes).toBeLessThanOrEqual(INITIAL_JS_BUDGET_BYTES);
  });
});

describe('the pages of the production build', () => {
  const manifest = () =>
    JSON.parse(readFileSync(join(outDir, '.vite/manifest.json'), 'utf8')) as Record<
      string,
      { file: string; isDynamicEntry?: boolean }
    >;
  const pages = readdirSync(join(webRoot, 'src/app/routes'))
    .filter((file) => file.endsWith('.tsx') && !file.endsWith('.test.tsx'))
    .map((file) => file.replace(/\.tsx$/, ''))
    .filter((page) => !NOT_PAGES.includes(page));

  it('has every page but sign-in, /home and the player load lazily, outside the initial JS', () => {
    const initialUrls = measureInitialJs(outDir).files.map((file) => file.url);
    const lazyPages = pages.filter((page) => !FIRST_LOAD_PAGES.includes(page));
    expect(lazyPages).toContain('watch-all');
    for (const page of lazyPages) {
      const chunk = manifest()[`src/app/routes/${page}.tsx`];
      expect(chunk?.isDynamicEntry, `${page} is a chunk of its own`).toBe(true);
      expect(initialUrls, page).not.toContain(`/${chunk?.file}`);
    }
    for (const page of FIRST_LOAD_PAGES) {
      expect(manifest()[`src/app/routes/${page}.tsx`], `${page} is in the entry`).toBeUndefined();
    }
  });
});
