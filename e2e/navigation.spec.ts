import { expect, signInByApi, test } from './support/fixtures';

const WIDTHS = { small: 375, medium: 768, large: 1280 } as const;

test.describe('routes, header and layout', () => {
  test('a protected route without a stored token goes to the sign-in page', async ({ page }) => {
    for (const path of ['/home', '/player/N743AS']) {
      await page.goto(path);
      await expect(page).toHaveURL(/\/$/);
      await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
    }
  });

  test('/player/ without a stream id goes to /home', async ({ page }) => {
    await signInByApi(page);
    await page.goto('/player/');
    await expect(page).toHaveURL(/\/home$/);
  });

  test('the header logo goes to /home and Logout removes the token and goes to /', async ({
    page,
  }) => {
    await signInByApi(page);
    await page.goto('/player/N954AS');
    await page.getByRole('link', { name: 'Tailcam home' }).click();
    await expect(page).toHaveURL(/\/home$/);
    await page.getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/$/);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await page.goto('/home');
    await expect(page).toHaveURL(/\/$/);
  });

  for (const [size, width] of Object.entries(WIDTHS)) {
    test(`the stream grid has ${width === 375 ? 1 : width === 768 ? 2 : 3} column(s) at ${width} px (${size})`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 900 });
      await signInByApi(page);
      await page.goto('/home');
      const cards = page.getByRole('list', { name: 'Streams' }).getByRole('link');
      await expect(cards).toHaveCount(3);
      const lefts = new Set<number>();
      for (const card of await cards.all()) {
        const box = await card.boundingBox();
        if (box) lefts.add(Math.round(box.x));
      }
      expect(lefts.size).toBe(width === 375 ? 1 : width === 768 ? 2 : 3);
    });
  }

  test("the back button reads 'Back' and Logout shows only its icon on small screens", async ({
    page,
  }) => {
    await page.setViewportSize({ width: WIDTHS.small, height: 800 });
    await signInByApi(page);
    await page.goto('/player/N743AS');
    const back = page.getByRole('link', { name: 'Back', exact: true });
    await expect(back).toBeVisible();
    await expect(back.getByText('Back', { exact: true })).toBeVisible();
    await expect(back.getByText('Back to Selection')).toBeHidden();
    const logout = page.getByRole('button', { name: 'Logout' });
    await expect(logout).toBeVisible();
    await expect(logout.getByText('Logout')).toBeHidden();
    await expect(logout.locator('svg')).toBeVisible();
  });

  test("the back button reads 'Back to Selection' and Logout shows its label on large screens", async ({
    page,
  }) => {
    await page.setViewportSize({ width: WIDTHS.large, height: 900 });
    await signInByApi(page);
    await page.goto('/player/N743AS');
    const back = page.getByRole('link', { name: 'Back to Selection' });
    await expect(back.getByText('Back to Selection')).toBeVisible();
    await expect(back.getByText('Back', { exact: true })).toBeHidden();
    await expect(page.getByRole('button', { name: 'Logout' }).getByText('Logout')).toBeVisible();
    await back.click();
    await expect(page).toHaveURL(/\/home$/);
  });
});
