/**
 * The operator's page (docs/product.md#operations) live in Firefox (Debian's Firefox ESR over
 * WebDriver BiDi, e2e/support/firefox.ts), the user path operations.spec.ts proves in Chromium: a
 * viewer signs in through the form and opens Operations; N954AS's camera stops, and the page shows
 * it 'Off air' within its off-air grace and a second, the polite live region announces it once and
 * the event is listed; a player opened on it says since when it is off air under 'Waiting for
 * video'; the camera back, the page says so. On an instance of its own with a grace of 2 s
 * (e2e/support/operations.ts, as operations.spec.ts has). Only the page's words are read: no
 * drawing and no stats.
 */
import { STREAM_IDS } from '@tailcam/protocol/streams';
import {
  appUrl,
  clickWhenThere,
  firefoxForFile,
  firefoxPage,
  named,
  pathOf,
  signInThroughFormIn,
  skipWithoutFirefox,
  type Page,
} from './support/firefox';
import { expect, test } from './support/fixtures';
import { GRACE_SECONDS, operationsInstanceForFile, STREAM } from './support/operations';

skipWithoutFirefox();
const operations = operationsInstanceForFile('firefox-operations', 950);
const firefox = firefoxForFile({ width: 1280, height: 900 });
const LIVE_REGION = '[aria-live="polite"]';

/** The visible text of the 'Aircraft now' table's row for `aircraft` (null when there is none). */
function rowText(page: Page, aircraft: string): Promise<string | null> {
  return page.evaluate((wanted) => {
    const table = [...document.querySelectorAll('table')].find(
      (each) => each.caption?.textContent === 'Aircraft now',
    );
    const row = [...(table?.rows ?? [])].find(
      (each) => each.querySelector('th[scope="row"]')?.textContent === wanted,
    );
    return row instanceof HTMLElement ? row.innerText : null;
  }, aircraft);
}

/** The 'Aircraft now' table's row headers: the aircraft it lists. */
function tableAircraft(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const table = [...document.querySelectorAll('table')].find(
      (each) => each.caption?.textContent === 'Aircraft now',
    );
    return [...(table?.querySelectorAll('th[scope="row"]') ?? [])].map(
      (header) => header.textContent ?? '',
    );
  });
}

/** The text of the element at `selector` (null when there is none). */
function textOf(page: Page, selector: string): Promise<string | null> {
  return page.evaluate((wanted) => document.querySelector(wanted)?.textContent ?? null, selector);
}

/** The list items whose text has every one of `parts`, as the page shows them. */
function listItemsWith(page: Page, parts: string[]): Promise<string[]> {
  return page.evaluate(
    (wanted) =>
      [...document.querySelectorAll('li')]
        .map((item) => item.innerText)
        .filter((text) => wanted.every((part) => text.includes(part))),
    parts,
  );
}

/** The texts of the innermost shown elements whose whole text matches `pattern`. */
function shownTextsMatching(page: Page, pattern: RegExp): Promise<string[]> {
  return page.evaluate(
    (source, flags) => {
      const wanted = new RegExp(source, flags);
      return (
        [...document.querySelectorAll('body *')]
          .filter((element): element is HTMLElement => element instanceof HTMLElement)
          .filter((element) => {
            const box = element.getBoundingClientRect();
            return box.width > 0 && box.height > 0 && wanted.test(element.innerText.trim());
          })
          // The innermost: not a container whose child says it.
          .filter(
            (element) =>
              ![...element.children].some(
                (child) => child instanceof HTMLElement && wanted.test(child.innerText.trim()),
              ),
          )
          .map((element) => element.innerText.trim())
      );
    },
    pattern.source,
    pattern.flags,
  );
}

/**
 * Records what the polite live region announces from now on (each announcement is a new node in
 * it); `announced` reads them back.
 */
async function listenToLiveRegion(page: Page): Promise<void> {
  await page.evaluate((selector) => {
    const region = document.querySelector(selector);
    if (!region) throw new Error('no polite live region');
    const heard: string[] = [];
    Object.assign(window, { e2eAnnounced: heard });
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node.textContent) heard.push(node.textContent);
        }
      }
    }).observe(region, { childList: true, subtree: true });
  }, LIVE_REGION);
}

function announced(page: Page): Promise<string[]> {
  return page.evaluate(() => [...((window as { e2eAnnounced?: string[] }).e2eAnnounced ?? [])]);
}

test(`the operator's page in Firefox shows ${STREAM} going off air within its grace and a second, announced once, and its player says since when`, async () => {
  const { product, viewer } = operations.started();
  const { baseUrl } = operations;
  const page = await firefoxPage(firefox());
  await signInThroughFormIn(page, { baseUrl, ...viewer });
  await clickWhenThere(page, named('Operations'));
  await expect.poll(() => pathOf(page)).toBe('/operations');
  await expect.poll(async () => (await tableAircraft(page)).sort()).toEqual([...STREAM_IDS].sort());
  // The synthetic camera publishes from the start.
  await expect.poll(() => rowText(page, STREAM), { timeout: 10_000 }).toContain('On air');
  await listenToLiveRegion(page);

  const boundMs = (GRACE_SECONDS + 1) * 1000;
  const stoppedAt = Date.now();
  await product.stage.camera({ stageId: STREAM, action: 'stop' });
  await expect
    .poll(() => rowText(page, STREAM), { timeout: boundMs, intervals: [50] })
    .toContain('Off air');
  const tookMs = Date.now() - stoppedAt;
  test.info().annotations.push({ type: 'off air shown after', description: `${tookMs} ms` });
  console.log(`Firefox: ${STREAM} shown off air ${tookMs} ms after its camera stopped`);
  expect(tookMs).toBeLessThanOrEqual(boundMs);
  // Since the camera went, not since the grace ended: under a minute ago.
  expect(await rowText(page, STREAM)).toMatch(/for \d+ s/);
  await expect.poll(() => textOf(page, LIVE_REGION)).toBe(`${STREAM} is off air`);
  await expect
    .poll(() => listItemsWith(page, [STREAM, 'Off Air']))
    .toEqual([expect.stringContaining(STREAM)]);
  // The others stay on air.
  expect(await rowText(page, 'N743AS')).toContain('On air');

  const player = await firefox().newPage();
  await player.goto(appUrl(`/player/${STREAM}`, baseUrl));
  await expect
    .poll(() => shownTextsMatching(player, new RegExp(`^Waiting for video from ${STREAM}$`)), {
      timeout: 10_000,
    })
    .toHaveLength(1);
  await expect
    .poll(() => shownTextsMatching(player, /^Off air since .+ \(for \d+ s\)$/))
    .toHaveLength(1);
  await player.close();
  // Announced once: going off air said nothing else, and said it once.
  expect(await announced(page)).toEqual([`${STREAM} is off air`]);

  // On air again: the page says so without a reload.
  await product.stage.camera({ stageId: STREAM, action: 'start' });
  await expect.poll(() => rowText(page, STREAM), { timeout: 10_000 }).toContain('On air');
  await expect.poll(() => textOf(page, LIVE_REGION)).toBe(`${STREAM} is on air`);
  expect(await announced(page)).toEqual([`${STREAM} is off air`, `${STREAM} is on air`]);
});
