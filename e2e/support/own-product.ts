/**
 * A spec's own product, for specs that need none of the shared product's counts and run in the
 * `own-instances` lane beside the shared one (playwright.config.ts): started before the spec's
 * first test, its pages' relative URLs pointed at it, and a viewer of its own signed in.
 */
import type { Page } from '@playwright/test';
import { Product } from '@tailcam/harness/product';
import { signIn } from '@tailcam/harness/sign-in';
import { ownInstance } from './environment';
import { test } from './fixtures';

/** Call at the top of a spec file; returns the spec's `signInByApi`. */
export function useOwnProduct(name: string, offset: number): (page: Page) => Promise<void> {
  const instance = ownInstance(name, offset);
  const viewer = { username: `${name}-viewer`, password: `${name} viewer password 1` };
  let product: Product | undefined;
  let loginToken: string | undefined;

  test.use({ baseURL: `http://127.0.0.1:${instance.port}` });
  test.beforeAll(async () => {
    test.setTimeout(90_000);
    product = new Product(instance);
    product.addViewer(viewer);
    await product.start();
    loginToken = await product.loginToken(viewer);
  });
  test.afterAll(async () => {
    await product?.dispose();
  });

  return (page) => {
    if (loginToken === undefined) throw new Error(`${name}'s product has not started`);
    return signIn(page, loginToken);
  };
}
