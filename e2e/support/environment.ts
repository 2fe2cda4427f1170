/** Where the product under test listens, and how Chromium is started. Shared by config and tests. */
import { existsSync } from 'node:fs';

export const E2E_PORT = Number(process.env.E2E_PORT ?? 18080);
export const E2E_STAGE_PORT = Number(process.env.E2E_STAGE_PORT ?? 18091);
export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
/** The local stage's own port: fault controls and stats live there, never behind the API. */
export const E2E_STAGE_URL = `http://127.0.0.1:${E2E_STAGE_PORT}`;

export const E2E_USERNAME = 'e2e-viewer';
export const E2E_PASSWORD = 'e2e viewer password 1';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function chromiumExecutable(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return (
    candidates.find((path): path is string => !!path && existsSync(path)) ?? '/usr/bin/chromium'
  );
}
