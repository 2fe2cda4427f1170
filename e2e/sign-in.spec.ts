import { E2E_PASSWORD, E2E_USERNAME } from './support/environment';
import { expect, signInThroughForm, test } from './support/fixtures';

test.describe('signing in', () => {
  test("shows 'Invalid credentials' for a wrong password and enables the form again", async ({
    page,
  }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
    await page.getByLabel('Username').fill(E2E_USERNAME);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign In' }).click();

    await expect(page.getByRole('alert')).toHaveText('Invalid credentials');
    await expect(page.getByRole('button', { name: 'Sign In' })).toBeEnabled();
    await expect(page.getByLabel('Username')).toBeEnabled();
    await expect(page).toHaveURL(/\/$/);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
  });

  test("shows 'Invalid credentials' for a user that does not exist", async ({ page }) => {
    await page.goto('/');
    await page.getByLabel('Username').fill('nobody-by-that-name');
    await page.getByLabel('Password').fill(E2E_PASSWORD);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page.getByRole('alert')).toHaveText('Invalid credentials');
  });

  test('signs in with the form, stores the token and shows the streams', async ({ page }) => {
    await signInThroughForm(page);
    await expect(page.getByRole('heading', { name: 'Available Streams' })).toBeVisible();
    const token = await page.evaluate(() => localStorage.getItem('token'));
    expect(token?.split('.')).toHaveLength(3);
  });

  test("reads 'Signing in...' with the form disabled while the login is pending", async ({
    page,
  }) => {
    await page.goto('/');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/login', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByLabel('Username').fill(E2E_USERNAME);
    await page.getByLabel('Password').fill(E2E_PASSWORD);
    await page.getByRole('button', { name: 'Sign In' }).click();

    await expect(page.getByRole('button', { name: 'Signing in...' })).toBeDisabled();
    await expect(page.getByLabel('Username')).toBeDisabled();
    await expect(page.getByLabel('Password')).toBeDisabled();
    release();
    await expect(page).toHaveURL(/\/home$/);
  });

  test('works with the keyboard only: sign in, choose a stream, go back, log out', async ({
    page,
  }) => {
    await page.goto('/');
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('Username')).toBeFocused();
    await page.keyboard.type(E2E_USERNAME);
    await page.keyboard.press('Tab');
    await page.keyboard.type(E2E_PASSWORD);
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/home$/);
    // The URL changes before the page renders: tab only once the grid is there, or the first
    // presses land on the sign-in form on its way out (seen under load).
    await expect(page.getByRole('link', { name: /N954AS/ })).toBeVisible();

    // Header logo, 'Operations', Logout, 'Recordings', 'Watch all', then the first card.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: 'Recordings' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: 'Watch all streams at once' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: /N743AS/ })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: /N953AS/ })).toBeFocused();
    await page.keyboard.press('Space');
    await expect(page).toHaveURL(/\/player\/N953AS$/);

    // After a navigation, focus moves to the page's main content: the back link comes first.
    await expect(page.getByRole('main')).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: /Back/ })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/home$/);
    await expect(page.getByRole('main')).toBeFocused();

    // Logout is the last control of the header, just before the main content.
    await page.keyboard.press('Shift+Tab');
    await expect(page.getByRole('button', { name: 'Logout' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/$/);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
  });
});
