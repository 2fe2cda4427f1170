/**
 * Tailcam as `npm start` runs it (scripts/start.mjs: the API and the local stage, production
 * builds), on the benchmark's own ports, with a throwaway data directory, viewers created through
 * the accounts CLI and the stage's fault controls on. Mirrors e2e/support/global-setup.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
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

function addViewer(env: NodeJS.ProcessEnv, viewer: { username: string; password: string }) {
  const result = spawnSync('npm', ['run', '--silent', 'users', '--', 'add', viewer.username], {
    cwd: ROOT,
    env,
    input: `${viewer.password}\n`,
    encoding: 'utf8',
    timeout: 180_000, // a busy machine: the CLI starts Node, opens PGlite and hashes with argon2id
  });
  if (result.status !== 0) {
    throw new Error(
      `Could not create ${viewer.username} (${result.signal ?? `exit ${result.status}`}):\n${result.stdout}\n${result.stderr}`,
    );
  }
}

export async function login(viewer: { username: string; password: string }): Promise<string> {
  const response = await fetch(`${API_URL}/api/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(viewer),
  });
  const body: unknown = await response.json().catch(() => undefined);
  const token =
    typeof body === 'object' && body !== null && 'token' in body ? body.token : undefined;
  if (!response.ok || typeof token !== 'string') {
    throw new Error(`${viewer.username} cannot log in: ${response.status}`);
  }
  return token;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const killer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(killer);
      done();
    });
    child.kill('SIGTERM');
  });
}

export async function startProduct(): Promise<Product> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tailcam-bench-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(API_PORT),
    STAGE_PORT: String(STAGE_PORT),
    LOCAL_STAGE_URL: STAGE_URL,
    DATA_DIR: dataDir,
    STAGE_PROVIDER: 'local',
    STAGE_FAULTS: '1',
    LOG_LEVEL: 'warn',
  };
  addViewer(env, VIEWER);
  addViewer(env, LOGIN_VIEWER);

  const logFile = join(dataDir, 'product.log');
  const log = openSync(logFile, 'w');
  const product = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', log, log],
    detached: true, // its own process group, so that stopping reaches every child
  });
  let exited = false;
  product.once('exit', () => (exited = true));
  const stop = async () => {
    await stopChild(product);
    rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`scripts/start.mjs exited; see ${logFile}`);
    const ready = await Promise.all([
      fetch(`${API_URL}/api/health`),
      fetch(`${API_URL}/stage/health`),
    ]).then(
      ([api, stage]) => api.ok && stage.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error('Tailcam did not become ready within 90 s');
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  try {
    return { dataDir, logFile, loginToken: await login(VIEWER), stop };
  } catch (error) {
    await stop();
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
