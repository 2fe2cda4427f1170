/**
 * The Chromium every browser test, benchmark and soak runs: Debian's (CHROMIUM_PATH overrides it,
 * as scripts/ensure-chromium.mjs finds it) with the one list of flags.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type LaunchOptions } from '@playwright/test';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  // Many viewer pages share one browser (the benchmark's capacity part, the soak): none of them
  // may be throttled for being in the background.
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

export function chromiumExecutable(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return (
    candidates.find((path): path is string => !!path && existsSync(path)) ?? '/usr/bin/chromium'
  );
}

/** What Playwright launches: for `launchOptions` in a config or a spec's `test.use`. */
export function chromiumLaunchOptions(): LaunchOptions {
  return { executablePath: chromiumExecutable(), args: CHROMIUM_ARGS };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch(chromiumLaunchOptions());
}
