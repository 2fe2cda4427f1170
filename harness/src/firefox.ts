/**
 * The Firefox the Firefox specs run (e2e/firefox-*.spec.ts): Debian's Firefox ESR (FIREFOX_PATH
 * overrides it), driven through puppeteer-core over WebDriver BiDi, headless, with a fresh profile
 * whose preferences keep it off the network. Playwright's own Firefox is a patched build that
 * Playwright downloads; Debian's is the browser viewers run, and BiDi drives it unpatched.
 */
import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

/**
 * Where Firefox is, or undefined when it is not installed (the specs then skip, loudly). A
 * FIREFOX_PATH that is set is the one asked for: never another Firefox in its place.
 */
export function firefoxExecutable(): string | undefined {
  const given = process.env.FIREFOX_PATH;
  const candidates = given ? [given] : ['/usr/bin/firefox-esr', '/usr/bin/firefox'];
  return candidates.find((path) => existsSync(path));
}

/** Why the Firefox specs skip, for `test.skip` (undefined when Firefox is there). */
export function firefoxMissingReason(): string | undefined {
  if (firefoxExecutable()) return undefined;
  const given = process.env.FIREFOX_PATH;
  return (
    `SKIPPED: Firefox is not installed${given ? ` (FIREFOX_PATH=${given} does not exist)` : ''}: ` +
    'install firefox-esr (sudo apt-get install firefox-esr), or set FIREFOX_PATH to a Firefox'
  );
}

/**
 * On top of the ones puppeteer writes into every profile it makes (no safe mode, no first-run
 * pages, safebrowsing's lists and data reporting off, ...): whatever else would reach out to the
 * network, and what WebRTC on one machine needs.
 */
export const FIREFOX_PREFS: Record<string, string | number | boolean> = {
  // No update checks or downloads, of Firefox or of its add-ons and plugins.
  'app.update.auto': false,
  'app.update.enabled': false,
  'app.update.disabledForTesting': true,
  'app.update.url': '',
  'extensions.update.enabled': false,
  'extensions.systemAddon.update.enabled': false,
  'media.gmp-manager.updateEnabled': false,
  'media.gmp-manager.url': '',
  'browser.search.update': false,
  // No telemetry, health reports or studies.
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '',
  'toolkit.telemetry.updatePing.enabled': false,
  'toolkit.telemetry.shutdownPingSender.enabled': false,
  'toolkit.telemetry.firstShutdownPing.enabled': false,
  'toolkit.telemetry.newProfilePing.enabled': false,
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'app.shield.optoutstudies.enabled': false,
  'app.normandy.enabled': false,
  'app.normandy.api_url': '',
  'browser.ping-centre.telemetry': false,
  'browser.newtabpage.activity-stream.feeds.telemetry': false,
  'browser.newtabpage.activity-stream.telemetry': false,
  // No captive portal or connectivity checks (they fetch detectportal.firefox.com).
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'captivedetect.canonicalURL': '',
  // No safebrowsing, nor its lists' updates.
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.blockedURIs.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.downloads.remote.enabled': false,
  'browser.safebrowsing.provider.google.updateURL': '',
  'browser.safebrowsing.provider.google4.updateURL': '',
  'browser.safebrowsing.provider.mozilla.updateURL': '',
  // Nothing fetched ahead, and no remote settings, pings or DNS over HTTPS.
  'network.prefetch-next': false,
  'network.dns.disablePrefetch': true,
  'network.http.speculative-parallel-limit': 0,
  'network.trr.mode': 5,
  'services.settings.server': 'data:,#remote-settings-dummy/v1',
  'browser.aboutHomeSnippets.updateUrl': '',
  'browser.topsites.contile.enabled': false,
  // Video plays by itself, as in a viewer's Firefox (muted autoplay is allowed there already).
  'media.autoplay.default': 0,
  'media.autoplay.blocking_policy': 0,
  // The stage, the app and the browser are all on 127.0.0.1: ICE must gather the loopback
  // interface, which Firefox leaves out by default (a real viewer reaches the stage over a LAN
  // or the internet and never needs it).
  'media.peerconnection.ice.loopback': true,
};

export interface FirefoxOptions {
  /** The window's size; the viewport follows it (puppeteer's defaultViewport is turned off). */
  width?: number;
  height?: number;
}

/** Launches Firefox headless with a fresh profile (removed on close). Throws when it is missing. */
export function launchFirefox(options: FirefoxOptions = {}): Promise<Browser> {
  const executablePath = firefoxExecutable();
  if (!executablePath) throw new Error(firefoxMissingReason());
  const { width = 1280, height = 900 } = options;
  return puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath,
    headless: true,
    defaultViewport: { width, height },
    extraPrefsFirefox: FIREFOX_PREFS,
    // Firefox's stderr carries its own warnings (GLib, graphics); a failing launch shows it.
    dumpio: false,
  });
}
