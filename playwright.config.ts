import { defineConfig } from '@playwright/test';
import {
  E2E_BASE_URL,
  E2E_PORT,
  CHROMIUM_ARGS,
  chromiumExecutable,
} from './e2e/support/environment';

/**
 * End-to-end tests: the production build started as `npm start` starts it (API, database, local
 * stage, WebRTC), driven in Debian's Chromium. `npx playwright test` runs the suite.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/support/global-setup.ts',
  timeout: 45_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [
    ['list'],
    ['html', { open: 'never', outputFolder: `e2e/.artifacts/report-${E2E_PORT}` }],
  ],
  // Per port, so runs of the suite side by side (on other ports) never clear each other's files.
  outputDir: `e2e/.artifacts/results-${E2E_PORT}`,
  use: {
    baseURL: E2E_BASE_URL,
    browserName: 'chromium',
    launchOptions: { executablePath: chromiumExecutable(), args: CHROMIUM_ARGS },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
