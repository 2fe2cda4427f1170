import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // The lab's tests build network namespaces and measure links on two shared cores: one file at
    // a time, so one test's transfer never skews another's figures.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
