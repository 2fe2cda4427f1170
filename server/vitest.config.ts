import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['src/test/global-setup.ts'],
    // `npm test` runs these two files at a time (TAILCAM_SERVER_TEST_WORKERS=2): on two cores,
    // vitest's default is one.
    ...(process.env.TAILCAM_SERVER_TEST_WORKERS
      ? { maxWorkers: Number(process.env.TAILCAM_SERVER_TEST_WORKERS) }
      : {}),
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
