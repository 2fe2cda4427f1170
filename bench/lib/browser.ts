/** Browser contexts whose pages are signed in and carry the page probe, and what it recorded. */
import type { BrowserContext, Page } from '@playwright/test';
import type { BenchContext } from './context';
import { pageProbe, type G2gSample, type JoinMarks } from './page-probe';

export async function signedInContext(bench: BenchContext): Promise<BrowserContext> {
  const context = await bench.browser.newContext({
    baseURL: bench.product.baseUrl,
    viewport: { width: 1280, height: 720 },
  });
  await context.addInitScript(await pageProbe(bench.loginToken));
  return context;
}

/** The probe's record of the last click and what followed it. */
export function readJoin(page: Page): Promise<JoinMarks> {
  return page.evaluate(() => {
    const bench = (window as unknown as { __bench: JoinMarks }).__bench;
    return {
      clickAt: bench.clickAt,
      firstFrameAt: bench.firstFrameAt,
      loadedDataAt: bench.loadedDataAt,
      marks: bench.marks,
    };
  });
}

/**
 * Has Playwright put its own script in the page's main world now, before a measured click: its
 * first `waitForFunction` on a new document injects it (330 KB evaluated, 12–15 ms of the main
 * thread in a trace), which would otherwise land between the click and the first frame it waits
 * for, and be counted as the page's.
 */
export async function readyToWait(page: Page): Promise<void> {
  await page.waitForFunction(() => true);
}

export function waitForFirstFrame(page: Page, timeoutMs = 20_000): Promise<unknown> {
  return page.waitForFunction(
    () => (window as unknown as { __bench: JoinMarks }).__bench.firstFrameAt !== undefined,
    undefined,
    { timeout: timeoutMs },
  );
}

export async function takeG2gSamples(page: Page): Promise<G2gSample[]> {
  return page.evaluate(() => {
    const g2g = (window as unknown as { __bench: { g2g: { samples: G2gSample[] } } }).__bench.g2g;
    const samples = g2g.samples;
    g2g.samples = [];
    return samples;
  });
}

export function setG2g(page: Page, on: boolean): Promise<void> {
  return page.evaluate((value) => {
    (window as unknown as { __bench: { g2g: { on: boolean } } }).__bench.g2g.on = value;
  }, on);
}

export function framesPerSecond(page: Page, windowMs: number): Promise<number> {
  return page.evaluate(
    (ms) => (window as unknown as { __benchFps: (ms: number) => Promise<number> }).__benchFps(ms),
    windowMs,
  );
}

/** Frames presented so far on the page (all videos). */
export function framesPresented(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { __bench: { frames: number } }).__bench.frames);
}

export function streamCard(page: Page, streamId: string) {
  return page.getByRole('link', {
    name: new RegExp(`^${streamId}(, live)?: Click to watch stream$`),
  });
}

/**
 * Opens the player of `streamId` on `page`, waits past its first frames, and takes the glass to
 * glass samples of `sampleMs` (every sample the page took, of whichever stream it names).
 */
export async function sampleG2gOn(
  page: Page,
  streamId: string,
  sampleMs: number,
): Promise<G2gSample[]> {
  await page.goto(`/player/${streamId}`);
  // The probe marks the first frame after a "click": the page's start stands for it.
  await page.evaluate(() => {
    (window as unknown as { __bench: { clickAt: number } }).__bench.clickAt = 0;
  });
  await waitForFirstFrame(page);
  await page.waitForTimeout(1_000); // past the start-up frames
  await setG2g(page, true);
  await page.waitForTimeout(sampleMs);
  await setG2g(page, false);
  return takeG2gSamples(page);
}
