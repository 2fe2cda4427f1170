/**
 * The screens specs' check of one screen at the three widths (screens.spec.ts,
 * screens-overlays.spec.ts): the layout settles, axe-core finds nothing serious, and a screenshot
 * is saved (e2e/.artifacts/screenshots; the best are copied into docs/).
 */
import type { Page } from '@playwright/test';
import { expectNoSeriousAxeFindings } from './fixtures';

export const WIDTHS = [375, 768, 1280] as const;
const SHOTS = 'e2e/.artifacts/screenshots';

/** At each width: the layout settles, axe finds nothing serious, and a screenshot is taken. */
export async function atEveryWidth(
  page: Page,
  screen: string,
  options: { fullPage?: boolean; ready?: () => Promise<void> } = {},
): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await options.ready?.();
    await expectNoSeriousAxeFindings(page, `${screen} at ${width} px`);
    await page.screenshot({ path: `${SHOTS}/${screen}-${width}.png`, fullPage: options.fullPage });
  }
}
