/**
 * Click on a stream card → first frame presented, in Firefox (Debian's Firefox ESR over WebDriver
 * BiDi, harness/src/firefox.ts), the join part's three fresh modes beside Chromium's: an instant
 * click (puppeteer's: press and release together), the same 1 s after the pointer first moved on
 * the page (a person's arrival: the joins on standby, decision 0112), and one after the pointer
 * rested on the card 150 ms. The same page probe stamps the release and the first frame
 * (requestVideoFrameCallback). And 'Watch all' beside Chromium's player part: every tile's first
 * frame after an instant click on its link, and after a person's arrival (bench/page/tile-probe.ts
 * stamps them). Run when asked for (`--only=join-firefox`); skipped, with a row
 * saying so, when Firefox is not installed.
 */
import { launchFirefox, firefoxMissingReason } from '@tailcam/harness/firefox';
import { bundleForPage } from '@tailcam/harness/page-scripts';
import { pollUntil } from '@tailcam/harness/poll';
import { signInScript } from '@tailcam/harness/sign-in';
import { median, p95 } from '@tailcam/harness/stats';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import type { Browser, Page } from 'puppeteer-core';
import type { BenchContext } from '../lib/context';
import { pageProbe, type JoinMarks } from '../lib/page-probe';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';

const HOVER_MS = 150;
const ARRIVAL_MS = 1_000;

interface ClickWay {
  arrivalMs?: number;
  hoverMs?: number;
}

const readJoin = (page: Page) =>
  page.evaluate(() => (window as unknown as { __bench: JoinMarks }).__bench);

/**
 * Polled with page.evaluate: puppeteer's waitForSelector and waitForFunction fail at once over
 * BiDi on the app's pages (as the soak found, harness/src/soak/viewer-pages.ts). The figure is
 * the page's own clock, so the polling's pace does not change it.
 */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  if (!(await pollUntil(check, 20_000, 20))) {
    throw new Error(`no ${what} in 20 s`);
  }
}

async function measureClick(
  page: Page,
  url: string,
  streamId: string,
  { arrivalMs = 0, hoverMs = 0 }: ClickWay,
) {
  // The pointer off the cards and links first: the last round left it on the one it clicked.
  await page.mouse.move(0, 0);
  await page.goto(url);
  const card = `a[href="/player/${streamId}"]`;
  await until(() => page.evaluate((selector) => !!document.querySelector(selector), card), card);
  if (arrivalMs > 0) {
    await page.mouse.move(2, 300);
    await new Promise((resolve) => setTimeout(resolve, arrivalMs));
  }
  if (hoverMs > 0) {
    await page.hover(card);
    await new Promise((resolve) => setTimeout(resolve, hoverMs));
  }
  await page.click(card);
  await until(
    () =>
      page.evaluate(
        () => (window as unknown as { __bench: JoinMarks }).__bench.firstFrameAt !== undefined,
      ),
    `first frame of ${streamId}`,
  );
  const join = await readJoin(page);
  return (join.firstFrameAt ?? Number.NaN) - join.clickAt;
}

/** A click on 'Watch all' (after a person's arrival, if asked): each tile's first frame after it. */
async function measureWatchAll(page: Page, url: string, { arrivalMs = 0 }: ClickWay) {
  // The pointer off the cards and links first: the last round left it on the one it clicked.
  await page.mouse.move(0, 0);
  await page.goto(url);
  const link = 'a[href="/watch-all"]';
  await until(() => page.evaluate((selector) => !!document.querySelector(selector), link), link);
  if (arrivalMs > 0) {
    await page.mouse.move(2, 300);
    await new Promise((resolve) => setTimeout(resolve, arrivalMs));
  }
  await page.click(link);
  const tiles = () =>
    page.evaluate(() =>
      Object.values(window.__tiles).map(
        (tile) => (tile.firstFrameAt ?? NaN) - (window.__clickAt ?? NaN),
      ),
    );
  await until(async () => {
    const times = await tiles();
    return times.length === STREAM_IDS.length && times.every((time) => !Number.isNaN(time));
  }, 'first frame of every tile');
  return tiles();
}

/** 'Watch all' in Firefox, each mode `bench.options.joins` rounds: every tile's first frame. */
async function watchAllRows(
  browser: Browser,
  bench: BenchContext,
  version: string,
): Promise<BenchRow[]> {
  const page = await browser.newPage();
  await page.evaluateOnNewDocument(signInScript(bench.loginToken));
  await page.evaluateOnNewDocument(await bundleForPage('bench/page/tile-probe.ts'));
  const url = `${bench.product.baseUrl}/home`;
  const rows: BenchRow[] = [];
  const modes: [string, ClickWay][] = [
    ['an instant click on its link', {}],
    [`the same, the pointer moved on the page ${ARRIVAL_MS} ms before`, { arrivalMs: ARRIVAL_MS }],
  ];
  for (const [mode, way] of modes) {
    const times: number[] = [];
    // One unrecorded round first, as for the joins.
    for (let index = -1; index < bench.options.joins; index += 1) {
      const round = await measureWatchAll(page, url, way);
      if (index >= 0) times.push(...round);
    }
    rows.push({
      part: 'join-firefox',
      what: `Watch all, every tile's first frame, Firefox (${mode}, ${times.length / STREAM_IDS.length} rounds)`,
      target: '(beside Chromium)',
      median: `${round(median(times))} ms`,
      p95: `${round(p95(times))} ms`,
      pass: undefined,
      note: version,
    });
  }
  await page.close();
  return rows;
}

export async function runJoinFirefox(bench: BenchContext): Promise<BenchRow[]> {
  const missing = firefoxMissingReason();
  if (missing) {
    return [
      {
        part: 'join-firefox',
        what: 'skipped',
        target: '',
        median: '–',
        p95: '–',
        pass: undefined,
        note: missing,
      },
    ];
  }
  const browser = await launchFirefox({ width: 1280, height: 720 });
  const version = await browser.version();
  try {
    const page = await browser.newPage();
    await page.evaluateOnNewDocument(await pageProbe(bench.loginToken));
    const url = `${bench.product.baseUrl}/home`;
    const rows: BenchRow[] = [];
    const modes: [string, ClickWay][] = [
      ['fresh /home', {}],
      [
        `fresh /home, the pointer moved on the page ${ARRIVAL_MS} ms before`,
        { arrivalMs: ARRIVAL_MS },
      ],
      [`fresh /home, pointer on the card ${HOVER_MS} ms before`, { hoverMs: HOVER_MS }],
    ];
    for (const [mode, way] of modes) {
      const totals: number[] = [];
      // One unrecorded join first, as in Chromium's part.
      for (let index = -1; index < bench.options.joins; index += 1) {
        const total = await measureClick(page, url, STREAM_IDS[(index + 3) % 3] ?? 'N743AS', way);
        if (index >= 0) totals.push(total);
      }
      rows.push({
        part: 'join-firefox',
        what: `click → first frame, Firefox (${mode}, n=${totals.length})`,
        target: '(beside Chromium)',
        median: `${round(median(totals))} ms`,
        p95: `${round(p95(totals))} ms`,
        pass: undefined,
        note: version,
      });
    }
    rows.push(...(await watchAllRows(browser, bench, version)));
    return rows;
  } finally {
    await browser.close();
  }
}
