/** Signing a browser page in without the form, as a signed-in browser would have it. */
import type { Page } from '@playwright/test';

/**
 * Stores the login token before any page script runs, once per tab: a logout in the page stays a
 * logout on the next load.
 */
export async function signIn(page: Page, loginToken: string): Promise<void> {
  await page.addInitScript({ content: signInScript(loginToken) });
}

/** The same as a script, for any browser's init scripts (the soak's Firefox viewers too). */
export function signInScript(loginToken: string): string {
  return `(() => {
  if (sessionStorage.getItem('tailcam-harness-signed-in')) return;
  sessionStorage.setItem('tailcam-harness-signed-in', '1');
  localStorage.setItem('token', ${JSON.stringify(loginToken)});
})();`;
}
