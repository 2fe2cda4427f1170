/** Where the suite's products listen, where their logs go, and who signs in. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@tailcam/harness/product';

export const E2E_PORT = Number(process.env.E2E_PORT ?? 18080);
export const E2E_STAGE_PORT = Number(process.env.E2E_STAGE_PORT ?? E2E_PORT + 11);
export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
/** The shared product's metrics endpoint (METRICS_PORT), which e2e/prometheus.spec.ts scrapes. */
export const E2E_METRICS_PORT = Number(process.env.E2E_METRICS_PORT ?? E2E_PORT + 12);
/** The local stage's own port: fault controls and stats live there, never behind the API. */
export const E2E_STAGE_URL = `http://127.0.0.1:${E2E_STAGE_PORT}`;

export const E2E_USERNAME = 'e2e-viewer';
export const E2E_PASSWORD = 'e2e viewer password 1';

/** The products' logs (and Playwright's reports): e2e/.artifacts. */
export function artifactsDir(): string {
  const dir = join(ROOT, 'e2e', '.artifacts');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Where a spec's own instance listens: 10,000 above the suite's API port, plus the spec's offset
 * (with the default E2E_PORT, the API on 28080 + offset and its stage on 28091 + offset). Below
 * 32768, where Linux takes the local ports of outgoing connections, so that a browser's
 * connection cannot hold an instance's port when it starts (EADDRINUSE; decision 0050). A run on
 * other ports (E2E_PORT, 1,000 or more apart) moves every instance with it.
 */
export function ownInstance(name: string, offset: number) {
  return {
    name,
    port: E2E_PORT + 10_000 + offset,
    stagePort: E2E_PORT + 10_011 + offset,
    logFile: join(artifactsDir(), `${name}-${E2E_PORT}.log`),
  };
}
