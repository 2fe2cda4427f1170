import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const TESTS = 'src/**/*.test.ts';

/**
 * The test files that replace a module (`vi.mock`): each needs a module cache of its own. The
 * others share one process and its module cache, one file after another (`isolate: false`): a
 * file's imports (the app, fastify, PGlite) loaded afresh took a fifth of the suite's time. Each
 * test still builds its own app and database (src/test/helpers.ts).
 */
const src = fileURLToPath(new URL('./src', import.meta.url));
const MOCKING = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .filter((file) => /\bvi\.(mock|doMock)\(/.test(readFileSync(join(src, file), 'utf8')))
  .map((file) => `src/${file}`);

export default defineConfig({
  test: {
    globalSetup: ['src/test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'shared-process', include: [TESTS], exclude: MOCKING, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING } },
    ],
  },
});
