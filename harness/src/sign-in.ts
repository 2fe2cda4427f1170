/** Signing a browser page in without the form, as a signed-in browser would have it. */
import type { Page } from '@playwright/test';

/**
 * Stores the login token before any page script runs, once per tab: a logout in the page stays a
 * logout on the next load.
 */
export async function signIn(page: Page, loginToken: string): Promise<void> {
  await page.addInitScript((token) => {
    if (sessionStorage.getItem('tailcam-harness-signed-in')) return;
    sessionStorage.setItem('tailcam-harness-signed-in', '1');
    localStorage.setItem('token', token);
  }, loginToken);
}
