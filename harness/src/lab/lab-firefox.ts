/**
 * Debian's Firefox ESR in a lab namespace, driven by puppeteer-core over WebDriver BiDi.
 * puppeteer's own launch cannot do it: Firefox has no pipe transport, so puppeteer connects to the
 * WebSocket Firefox prints (ws://127.0.0.1:PORT), and that loopback is the namespace's, not this
 * process's. Here Firefox listens on a fixed port inside its namespace and the lab's loopback
 * bridge brings that port out, the WebSocket's Host header naming the port inside (Firefox answers
 * 400 to any other); its profile carries the same preferences as the Firefox specs'.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import puppeteer, { type Browser } from 'puppeteer-core';
import { FIREFOX_PREFS, firefoxExecutable, firefoxMissingReason } from '../firefox';
import type { LabNamespace } from './lab-topology';
import type { NetworkLab } from './network-lab';

/** The remote agent's port inside the namespace (each namespace has a loopback of its own). */
const REMOTE_PORT = 9222;

/** What puppeteer writes into a profile it makes, that a launch of our own must write itself. */
const PROFILE_PREFS: Record<string, string | number | boolean> = {
  'browser.shell.checkDefaultBrowser': false,
  'browser.startup.homepage_override.mstone': 'ignore',
  'browser.startup.page': 0,
  'browser.tabs.warnOnClose': false,
  'browser.warnOnQuit': false,
  'toolkit.startup.max_resumed_crashes': -1,
  'fission.webContentIsolationStrategy': 0,
  'remote.active-protocols': 1,
  ...FIREFOX_PREFS,
};

export interface LabFirefox {
  browser: Browser;
  close(): Promise<void>;
}

/** Launches Firefox headless in `role`'s namespace, with a fresh profile removed on close. */
export async function launchLabFirefox(lab: NetworkLab, role: LabNamespace): Promise<LabFirefox> {
  const executable = firefoxExecutable();
  if (!executable) throw new Error(firefoxMissingReason());
  const profile = mkdtempSync(join(tmpdir(), 'tailcam-lab-firefox-'));
  writeFileSync(
    join(profile, 'user.js'),
    Object.entries(PROFILE_PREFS)
      .map(([name, value]) => `user_pref(${JSON.stringify(name)}, ${JSON.stringify(value)});`)
      .join('\n'),
  );
  const child = lab.spawn(role, executable, [
    '--headless',
    '--no-remote',
    '--profile',
    profile,
    '--remote-debugging-port',
    String(REMOTE_PORT),
  ]);
  const removeProfile = () => rmSync(profile, { recursive: true, force: true });
  try {
    await listening(child.stderr!, 30_000);
    const url = await lab.loopbackUrl(role, '127.0.0.1', REMOTE_PORT);
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${url.replace(/^http/, 'ws')}/session`,
      protocol: 'webDriverBiDi',
      defaultViewport: { width: 1280, height: 900 },
      // Firefox's remote agent refuses a Host that is not the one it listens on (port included).
      headers: { Host: `127.0.0.1:${REMOTE_PORT}` },
    });
    return {
      browser,
      async close() {
        await browser.close().catch(() => undefined);
        child.kill('SIGKILL');
        removeProfile();
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    removeProfile();
    throw error;
  }
}

/** Until Firefox says its remote agent listens (its stderr), or `timeoutMs`. */
function listening(stderr: NodeJS.ReadableStream, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: stderr });
    const said: string[] = [];
    const timer = setTimeout(() => {
      lines.close();
      reject(
        new Error(`Firefox's remote agent did not listen in ${timeoutMs} ms:\n${said.join('\n')}`),
      );
    }, timeoutMs);
    lines.on('line', (line) => {
      said.push(line);
      if (!line.includes('WebDriver BiDi listening on')) return;
      clearTimeout(timer);
      lines.close();
      resolve();
    });
  });
}
