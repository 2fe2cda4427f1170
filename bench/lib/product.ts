/**
 * Tailcam as `npm start` runs it (scripts/start.mjs: the API and the local stage, production
 * builds), on the benchmark's own ports, with a throwaway data directory, viewers created through
 * the accounts CLI and the stage's fault controls on: e2e/support/product.ts does the starting.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  login as loginAt,
  startProduct as startSharedProduct,
  type Viewer,
} from '../../e2e/support/product';

export { ROOT } from '../../e2e/support/product';

export const API_PORT = Number(process.env.BENCH_PORT ?? 38080);
export const STAGE_PORT = Number(process.env.BENCH_STAGE_PORT ?? 38091);
export const API_URL = `http://127.0.0.1:${API_PORT}`;
/** The stage's own port: stats and fault controls, loopback only, never behind the API. */
export const STAGE_URL = `http://127.0.0.1:${STAGE_PORT}`;

export const VIEWER = { username: 'bench-viewer', password: 'bench viewer password 1' };
/** A second account whose only job is the login-latency samples (its own rate-limit budget). */
export const LOGIN_VIEWER = { username: 'bench-login', password: 'bench login password 1' };

export interface StageStats {
  sockets: number;
  peerConnections: number;
  stages: Record<string, { camera: { state: string; viewers: number }; peerConnections: number }>;
  process: { cpuMicros: number; rssBytes: number; uptimeMs: number };
}

export interface Product {
  dataDir: string;
  logFile: string;
  /** The bench viewer's login token (one login for the whole run: the limit is 10 a minute). */
  loginToken: string;
  stop: () => Promise<void>;
}

export function login(viewer: Viewer): Promise<string> {
  return loginAt(API_URL, viewer);
}

export async function startProduct(): Promise<Product> {
  const product = await startSharedProduct({
    port: API_PORT,
    stagePort: STAGE_PORT,
    viewers: [VIEWER, LOGIN_VIEWER],
    logFile: join(tmpdir(), `tailcam-bench-${API_PORT}.log`),
  });
  try {
    return { ...product, loginToken: await login(VIEWER) };
  } catch (error) {
    await product.stop();
    throw error;
  }
}

async function stageCall<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${STAGE_URL}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return (await response.json()) as T; // loopback test control of our own stage
}

export const stage = {
  stats: () => stageCall<StageStats>('/_stats'),
  drop: (target: { stageId?: string; participantId?: string }) =>
    stageCall<{ dropped: number }>('/_faults/drop', target),
};

/** Waits (bounded) until the stage holds no peer connection and no socket. */
export async function stageIdle(timeoutMs = 15_000): Promise<StageStats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stats = await stage.stats();
    if ((stats.peerConnections === 0 && stats.sockets === 0) || Date.now() > deadline) return stats;
    await new Promise((done) => setTimeout(done, 100));
  }
}
