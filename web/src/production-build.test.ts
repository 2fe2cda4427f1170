/**
 * The production build, made once with the project's own Vite config into a temporary directory:
 * nothing in it hands a visitor the app's source (no source map, no link to one), and its initial
 * JS stays within the budget, measured as the bench measures it (scripts/initial-js.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INITIAL_JS_BUDGET_BYTES, measureInitialJs } from '../scripts/initial-js';

const webRoot = join(import.meta.dirname, '..');
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
      build: { outDir, emptyOutDir: true },
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

  it('keeps the initial JS (entry chunk plus modulepreloads, gzip -9) within 100 KB of 1024 bytes', () => {
    const initial = measureInitialJs(outDir);
    expect(initial.files[0]?.url).toMatch(/^\/assets\/index-[\w-]+\.js$/);
    expect(initial.gzipBytes).toBeLessThanOrEqual(INITIAL_JS_BUDGET_BYTES);
  });
});
