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

/** Chromium's own camera and microphone, granted without asking: for pages that publish. */
export const FAKE_MEDIA_ARGS = [
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
];

export interface ChromiumOptions {
  /** getUserMedia answers with Chromium's fake camera (a green 4:3 pacman) and microphone. */
  fakeMedia?: boolean;
}

export function chromiumExecutable(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return (
    candidates.find((path): path is string => !!path && existsSync(path)) ?? '/usr/bin/chromium'
  );
}

/** What Playwright launches: for `launchOptions` in a config or a spec's `test.use`. */
export function chromiumLaunchOptions(options: ChromiumOptions = {}): LaunchOptions {
  return {
    executablePath: chromiumExecutable(),
    args: options.fakeMedia ? [...CHROMIUM_ARGS, ...FAKE_MEDIA_ARGS] : CHROMIUM_ARGS,
  };
}

export function launchChromium(options: ChromiumOptions = {}): Promise<Browser> {
  return chromium.launch(chromiumLaunchOptions(options));
}
