/**
 * Starts Tailcam for the end-to-end suite exactly as `npm start` does (see product.ts), on the
 * suite's ports, with one test viewer created through the accounts CLI and signed in once.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { E2E_BASE_URL, E2E_PASSWORD, E2E_PORT, E2E_STAGE_PORT, E2E_USERNAME } from './environment';
import { login, ROOT, startProduct } from './product';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const artifacts = join(ROOT, 'e2e', '.artifacts');
  mkdirSync(artifacts, { recursive: true });
  const viewer = { username: E2E_USERNAME, password: E2E_PASSWORD };
  const product = await startProduct({
    port: E2E_PORT,
    stagePort: E2E_STAGE_PORT,
    viewers: [viewer],
    logFile: join(artifacts, `product-${E2E_PORT}.log`),
  });
  process.env.E2E_DATA_DIR = product.dataDir;
  // One login for the whole run: tests that only need to be signed in reuse it, so the login rate
  // limit (which the product must keep) is spent only by the tests about signing in.
  process.env.E2E_LOGIN_TOKEN = await login(E2E_BASE_URL, viewer);

  return () => product.stop();
}
