/**
 * The production build, made with the project's own Vite config into a temporary directory:
 * nothing in it hands a visitor the app's source (no source map, no link to one).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';

const webRoot = join(import.meta.dirname, '..');
const outDir = mkdtempSync(join(tmpdir(), 'tailcam-web-build-'));

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('the production build (npm run build -w web)', () => {
  it('emits no source map and no sourceMappingURL', { timeout: 120_000 }, async () => {
    await build({
      root: webRoot,
      configFile: join(webRoot, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'silent',
      build: { outDir, emptyOutDir: true },
    });
    const files = readdirSync(outDir, { recursive: true, encoding: 'utf8' });
    expect(files.filter((file) => file.endsWith('.js'))).not.toEqual([]);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of files.filter((name) => /\.(js|css)$/.test(name))) {
      expect(readFileSync(join(outDir, file), 'utf8'), file).not.toContain('sourceMappingURL');
    }
  });
});
