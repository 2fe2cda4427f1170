/**
 * The operator's page (docs/product.md#operations) live: an aircraft whose camera goes off air
 * shows 'Off air' within its off-air grace and a second, announced once, with the event listed;
 * a player opened on it then says since when it is off air under 'Waiting for video'. On an
 * instance of its own, with a grace of 2 s (OFF_AIR_GRACE_SECONDS), whose camera the spec may
 * stop: the shared product's other specs watch every aircraft. The page's screenshots at the three
 * widths (docs/screenshots/operations-*.png) and axe at each are taken here too. The instance and
 * its constants are e2e/support/operations.ts's, shared with firefox-operations.spec.ts.
 */
import { signIn } from '@tailcam/harness/sign-in';
import { stageControl } from '@tailcam/harness/stage-control';
import { expect, expectNoSeriousAxeFindings, test } from './support/fixtures';
import { GRACE_SECONDS, operationsInstanceForFile, STREAM } from './support/operations';

const operations = operationsInstanceForFile('operations', 900);
const WIDTHS = [375, 768, 1280] as const;
const SHOTS = 'e2e/.artifacts/screenshots';

test.use({ baseURL: operations.baseUrl });

test(`the operator's page shows ${STREAM} going off air within its grace and a second, and its player says since when`, async ({
  page,
  context,
}) => {
  const { product, loginToken } = operations.started();
  const stage = stageControl(product.stageUrl);
  await signIn(page, loginToken);
  await page.goto('/home');
  await page.getByRole('link', { name: 'Operations' }).click();
  await expect(page).toHaveURL(/\/operations$/);
  const table = page.getByRole('table', { name: 'Aircraft now' });
  const row = table.getByRole('row', { name: new RegExp(STREAM) });
  // The synthetic camera publishes from the start.
  await expect(row).toContainText('On air', { timeout: 10_000 });

  const stoppedAt = Date.now();
  await stage.camera({ stageId: STREAM, action: 'stop' });
  await expect(row).toContainText('Off air', { timeout: (GRACE_SECONDS + 1) * 1000 });
  const tookMs = Date.now() - stoppedAt;
  test.info().annotations.push({ type: 'off air shown after', description: `${tookMs} ms` });
  expect(tookMs).toBeLessThanOrEqual((GRACE_SECONDS + 1) * 1000);
  // Since the camera went, not since the grace ended: under a minute ago.
  await expect(row).toContainText(/for \d+ s/);
  await expect(page.locator('[aria-live="polite"]')).toHaveText(`${STREAM} is off air`);
  await expect(
    page.getByRole('listitem').filter({ hasText: STREAM }).filter({ hasText: 'Off Air' }),
  ).toHaveCount(1);
  // The others stay on air.
  await expect(table.getByRole('row', { name: /N743AS/ })).toContainText('On air');

  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await expectNoSeriousAxeFindings(page, `operations at ${width} px`);
    await page.screenshot({ path: `${SHOTS}/operations-${width}.png`, fullPage: true });
  }

  const player = await context.newPage();
  const asked: string[] = [];
  player.on('request', (request) => {
    if (new URL(request.url()).pathname === '/api/operations') asked.push(request.url());
  });
  await player.goto(`/player/${STREAM}`);
  await expect(player.getByText(`Waiting for video from ${STREAM}`)).toBeVisible({
    timeout: 10_000,
  });
  await expect(player.getByText(/^Off air since .+ \(for \d+ s\)$/)).toBeVisible();
  // One request when the notice showed, not a poll.
  expect(asked.map((url) => new URL(url).search)).toEqual(['']);

  // On air again: the page says so without a reload.
  await stage.camera({ stageId: STREAM, action: 'start' });
  await expect(row).toContainText('On air', { timeout: 10_000 });
  await expect(page.locator('[aria-live="polite"]')).toHaveText(`${STREAM} is on air`);
});
