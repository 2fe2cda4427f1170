/**
 * Starts Tailcam for the end-to-end suite exactly as `npm start` does (the harness's Product), on
 * the suite's ports, with one test viewer created through the accounts CLI and signed in once.
 */
import { join } from 'node:path';
import { Product } from '@tailcam/harness/product';
import {
  artifactsDir,
  E2E_METRICS_PORT,
  E2E_PASSWORD,
  E2E_PORT,
  E2E_STAGE_PORT,
  E2E_USERNAME,
} from './environment';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const viewer = { username: E2E_USERNAME, password: E2E_PASSWORD };
  const product = new Product({
    name: 'e2e',
    port: E2E_PORT,
    stagePort: E2E_STAGE_PORT,
    metricsPort: E2E_METRICS_PORT,
    logFile: join(artifactsDir(), `product-${E2E_PORT}.log`),
  });
  try {
    product.addViewer(viewer);
    await product.start();
    // One login for the whole run: tests that only need to be signed in reuse it, so the login
    // rate limit (which the product must keep) is spent only by the tests about signing in.
    process.env.E2E_LOGIN_TOKEN = await product.loginToken(viewer);
    // Where the product keeps its secrets: the operator's CLIs (npm run publish-token) read it.
    process.env.E2E_DATA_DIR = product.dataDir;
  } catch (error) {
    await product.dispose();
    throw error;
  }
  return () => product.dispose();
}
