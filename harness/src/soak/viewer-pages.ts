/**
 * The soak's viewer pages in either browser: Chromium through Playwright, or Debian's Firefox ESR
 * through puppeteer-core over WebDriver BiDi (../firefox.ts). The soak drives both alike through
 * this interface; what a page measures runs inside it (page/soak-instruments.ts), so it is the
 * same code in both.
 *
 * Each Firefox viewer gets a window of its own: a tab behind another is hidden, and Firefox stops
 * decoding a hidden tab's video (Chromium's flags keep its background pages running instead).
 */
import type { Browser as PlaywrightBrowser, Page as PlaywrightPage } from '@playwright/test';
import type { Browser as PuppeteerBrowser, Page as PuppeteerPage } from 'puppeteer-core';
import { arrive } from '../arrival';
import { launchChromium } from '../chromium';
import { launchFirefox } from '../firefox';
import { pollUntil } from '../poll';

export type SoakBrowserName = 'chromium' | 'firefox';

export interface ViewerPage {
  goto(url: string): Promise<void>;
  /** Clicks the first link whose accessible name matches, once there is one. */
  clickLink(name: RegExp): Promise<void>;
  /** Moves the pointer across the page, as a person's hand arriving on it does. */
  movePointer(): Promise<void>;
  /** The path the page is at (the app routes with the History API). */
  path(): Promise<string>;
  evaluate<R>(pageFunction: () => R | Promise<R>): Promise<R>;
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

export interface PageErrors {
  pageError(message: string): void;
  consoleError(text: string): void;
}

export interface ViewerBrowser {
  name: SoakBrowserName;
  /** The browser's own version string. */
  version: string;
  /** A page with `initScripts` run before each document's own scripts, its errors reported. */
  newPage(initScripts: string[], errors: PageErrors): Promise<ViewerPage>;
  close(): Promise<void>;
}

/** How long a link may take to appear (Playwright's own wait for the Chromium click is alike). */
const LINK_WAIT_MS = 30_000;

export async function launchViewerBrowser(name: SoakBrowserName): Promise<ViewerBrowser> {
  return name === 'firefox'
    ? firefoxViewers(await launchFirefox())
    : chromiumViewers(await launchChromium());
}

function chromiumViewers(browser: PlaywrightBrowser): ViewerBrowser {
  return {
    name: 'chromium',
    version: browser.version(),
    async newPage(initScripts, errors) {
      const page = await browser.newPage();
      page.on('pageerror', (error) => errors.pageError(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.consoleError(message.text());
      });
      for (const content of initScripts) await page.addInitScript({ content });
      return chromiumPage(page);
    },
    close: () => browser.close(),
  };
}

function chromiumPage(page: PlaywrightPage): ViewerPage {
  return {
    goto: async (url) => {
      await page.goto(url);
    },
    clickLink: (name) => page.getByRole('link', { name }).click({ timeout: LINK_WAIT_MS }),
    movePointer: () => arrive(page.mouse),
    path: async () => new URL(page.url()).pathname,
    evaluate: (pageFunction) => page.evaluate(pageFunction),
    screenshot: async (path) => {
      await page.screenshot({ path });
    },
    close: () => page.close(),
  };
}

async function firefoxViewers(browser: PuppeteerBrowser): Promise<ViewerBrowser> {
  return {
    name: 'firefox',
    // Puppeteer's version over BiDi reads 'firefox/140.12.0': the name is said already.
    version: (await browser.version()).replace(/^firefox\//i, ''),
    async newPage(initScripts, errors) {
      const page = await browser.newPage({ type: 'window' });
      page.on('pageerror', (error) => errors.pageError(String(error)));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.consoleError(message.text());
      });
      for (const script of initScripts) await page.evaluateOnNewDocument(script);
      return firefoxPage(page);
    },
    close: () => browser.close(),
  };
}

function firefoxPage(page: PuppeteerPage): ViewerPage {
  const clickLink = async (name: RegExp): Promise<void> => {
    let clicked = false;
    await pollUntil(async () => {
      for (const link of await page.$$('a')) {
        const linkName = await link.evaluate((element) =>
          (element.getAttribute('aria-label') ?? element.textContent ?? '').trim(),
        );
        if (name.test(linkName)) {
          await link.click();
          clicked = true;
          return true;
        }
      }
      return false;
    }, LINK_WAIT_MS);
    if (!clicked)
      throw new Error(
        `no link named ${String(name)} in ${await page.evaluate(() => location.pathname)}`,
      );
  };
  return {
    goto: async (url) => {
      await page.goto(url);
    },
    clickLink,
    movePointer: () => arrive(page.mouse),
    // puppeteer's page.url() over BiDi does not follow Firefox's pushState.
    path: () => page.evaluate(() => location.pathname),
    evaluate: (pageFunction) => page.evaluate(pageFunction) as Promise<never>,
    screenshot: async (path) => {
      await page.screenshot({ path: path as `${string}.png` });
    },
    close: () => page.close(),
  };
}
