/**
 * What the Operations specs share (operations.spec.ts in Chromium, firefox-operations.spec.ts in
 * Firefox): an instance of the file's own, with an off-air grace of 2 s (OFF_AIR_GRACE_SECONDS) and
 * a viewer of its own, whose camera the spec may stop: the shared product's other specs watch
 * every aircraft.
 */
import { Product, type Viewer } from '@tailcam/harness/product';
import { ownInstance } from './environment';
import { test } from './fixtures';

/** The instances' off-air grace: an aircraft shows 'Off air' within it and a second. */
export const GRACE_SECONDS = 2;
/** The aircraft whose camera the specs stop. */
export const STREAM = 'N954AS';

export interface OperationsInstance {
  product: Product;
  viewer: Viewer;
  /** The viewer's login token. */
  loginToken: string;
}

/**
 * Starts the file's instance before its tests and stops it after them (beforeAll/afterAll), on
 * `ownInstance(name, offset)`'s ports, with the viewer `{name}-viewer`. Returns where it listens,
 * and a getter for the tests.
 */
export function operationsInstanceForFile(
  name: string,
  offset: number,
): { baseUrl: string; started: () => OperationsInstance } {
  const instance = ownInstance(name, offset);
  const viewer = { username: `${name}-viewer`, password: `${name} viewer password 1` };
  let product: Product | undefined;
  let loginToken = '';

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    product = new Product({ ...instance, env: { OFF_AIR_GRACE_SECONDS: String(GRACE_SECONDS) } });
    product.addViewer(viewer);
    await product.start();
    loginToken = await product.loginToken(viewer);
  });

  test.afterAll(async () => {
    await product?.dispose();
  });

  return {
    baseUrl: `http://127.0.0.1:${instance.port}`,
    started: () => {
      if (!product || !loginToken) throw new Error('the product did not start');
      return { product, viewer, loginToken };
    },
  };
}
