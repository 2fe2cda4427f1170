/**
 * Tailcam as `npm start` runs it (scripts/start.mjs: the API and the local stage, production
 * builds), on given ports, with a throwaway data directory, viewers created through the accounts
 * CLI and the stage's fault controls on. The one way tests, benchmarks and soaks start it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');

export interface Viewer {
  username: string;
  password: string;
}

export interface ProductOptions {
  port: number;
  stagePort: number;
  viewers: Viewer[];
  /** Where the product's own output goes. */
  logFile: string;
  /** Extra environment, e.g. `DATABASE_URL`. */
  env?: NodeJS.ProcessEnv;
  /** Keep this data directory (reused across restarts) instead of a fresh temporary one. */
  dataDir?: string;
}

export interface RunningProduct {
  baseUrl: string;
  /** The stage's own port: stats and fault controls, loopback only, never behind the API. */
  stageUrl: string;
  dataDir: string;
  logFile: string;
  /** Stops the product (SIGTERM, then SIGKILL of its process group after 10 s). */
  stop: (options?: { keepData?: boolean }) => Promise<void>;
}

/** Builds what `npm start` would build, if any output is missing. */
export function ensureBuilt(): void {
  const outputs = [
    'web/dist/index.html',
    'server/dist/server.js',
    'server/dist/users.js',
    'local-stage/dist/stage.js',
  ];
  if (outputs.every((file) => existsSync(join(ROOT, file)))) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}

/** Creates a viewer with the accounts CLI, as an operator would (the built one: ensureBuilt). */
export function addViewer(env: NodeJS.ProcessEnv, viewer: Viewer): void {
  const result = spawnSync(process.execPath, ['server/dist/users.js', 'add', viewer.username], {
    cwd: ROOT,
    env,
    input: `${viewer.password}\n`,
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (result.status !== 0) {
    throw new Error(`Could not create ${viewer.username}:\n${result.stdout}\n${result.stderr}`);
  }
}

export async function login(baseUrl: string, viewer: Viewer): Promise<string> {
  const response = await fetch(`${baseUrl}/api/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(viewer),
  });
  const body: unknown = await response.json().catch(() => undefined);
  const token =
    typeof body === 'object' && body !== null && 'token' in body ? body.token : undefined;
  if (response.status !== 200 || typeof token !== 'string') {
    throw new Error(`${viewer.username} cannot log in: ${response.status}`);
  }
  return token;
}

function stopProcessGroup(child: ChildProcess): Promise<void> {
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

/** Starts the product and resolves once the API and the stage (through the API) answer. */
export async function startProduct(options: ProductOptions): Promise<RunningProduct> {
  ensureBuilt();
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const stageUrl = `http://127.0.0.1:${options.stagePort}`;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tailcam-product-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(options.port),
    STAGE_PORT: String(options.stagePort),
    LOCAL_STAGE_URL: stageUrl,
    DATA_DIR: dataDir,
    STAGE_PROVIDER: 'local',
    STAGE_FAULTS: '1',
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  for (const viewer of options.viewers) addViewer(env, viewer);

  const log = openSync(options.logFile, 'a');
  const product = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', log, log],
    detached: true, // its own process group, so stopping reaches every child
  });
  let exited = false;
  product.once('exit', () => (exited = true));
  const stop = async ({ keepData = false } = {}) => {
    await stopProcessGroup(product);
    if (!keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`scripts/start.mjs exited; see ${options.logFile}`);
    const ready = await Promise.all([
      fetch(`${baseUrl}/api/health`),
      fetch(`${baseUrl}/stage/health`),
    ]).then(
      ([api, stage]) => api.ok && stage.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Tailcam did not become ready in 90 s; see ${options.logFile}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  return { baseUrl, stageUrl, dataDir, logFile: options.logFile, stop };
}
