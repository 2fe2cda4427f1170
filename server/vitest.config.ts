import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { isolationProjects } from '../scripts/vitest-isolation';

export default defineConfig({
  test: {
    globalSetup: ['src/test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // One process for the files that mock no module; each test still builds its own app and
    // database (src/test/helpers.ts).
    projects: isolationProjects({
      srcDir: fileURLToPath(new URL('./src', import.meta.url)),
      include: 'src/**/*.test.ts',
      testFile: /\.test\.ts$/,
      sharedName: 'shared-process',
    }),
  },
});
