import { availableParallelism } from 'node:os';
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '@tailcam/harness/chromium';
import { E2E_BASE_URL, E2E_PORT } from './e2e/support/environment';

const OWN_INSTANCE_SPECS = [
  '**/ivs-*.spec.ts',
  '**/faults.spec.ts',
  '**/soak.spec.ts',
  '**/turn-relay.spec.ts',
  '**/lab-*.spec.ts',
  '**/rewind.spec.ts',
  '**/screens.spec.ts',
  '**/operations.spec.ts',
  '**/firefox-operations.spec.ts',
];

/**
 * Specs whose bounds are times that other work on the machine moves: a picture frozen under loss,
 * a thumbnail's age, glass to glass (Chromium and Firefox), a publisher's bandwidth estimate, an
 * encoder's simulcast layers. (The soak's joins, 20 s each, passed beside the other lane, and under
 * six busy processes at load 12: it stays in its lane.) `npm test` runs them after the others (`--project=alone`), one at a time, so
 * that they time the product and not the suite's other lane (docs/development.md).
 */
const ALONE_SPECS = [
  '**/loss.spec.ts',
  '**/thumbnails.spec.ts',
  '**/player-features.spec.ts',
  '**/firefox-player.spec.ts',
  '**/whip-congestion-feedback.spec.ts',
  '**/whip-simulcast.spec.ts',
];

/** One Playwright worker a core, two at most (the two lanes below). */
const LANES = Math.min(2, availableParallelism());

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
  // Two lanes, one worker each: the specs that share the product global setup starts (their
  // assertions count the stage's viewers, so they run one at a time), and beside them the specs
  // that start instances of their own (IVS mode, faults, the lab), mostly waiting on timeouts.
  // Then, in a run of their own, the timing-bound specs one at a time.
  workers: LANES,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [
    ['list'],
    // When each lane began and ended: what balancing them needs (the tests' times leave out
    // their beforeAll product starts).
    ['./e2e/support/lane-times.ts'],
    ['html', { open: 'never', outputFolder: `e2e/.artifacts/report-${E2E_PORT}` }],
  ],
  // Per port, so runs of the suite side by side (on other ports) never clear each other's files.
  outputDir: `e2e/.artifacts/results-${E2E_PORT}`,
  projects: [
    {
      name: 'shared-product',
      testIgnore: [...OWN_INSTANCE_SPECS, ...ALONE_SPECS],
      workers: 1,
    },
    {
      name: 'own-instances',
      testMatch: OWN_INSTANCE_SPECS,
      testIgnore: ALONE_SPECS,
      workers: 1,
    },
    {
      name: 'alone',
      testMatch: ALONE_SPECS,
      workers: 1,
    },
  ],
  use: {
    baseURL: E2E_BASE_URL,
    browserName: 'chromium',
    launchOptions: chromiumLaunchOptions(),
    // Without the screencast: recording the screen of every test costs two cores frames and
    // time; the DOM snapshots and the failure screenshot are what a failure is read from.
    trace: { mode: 'retain-on-failure', screenshots: false },
    screenshot: 'only-on-failure',
  },
});
