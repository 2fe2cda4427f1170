/**
 * Starts Tailcam for the end-to-end suite exactly as `npm start` does (scripts/start.mjs: the API
 * and the local stage, production builds), on test ports, with a fresh data directory, one test
 * viewer created through the accounts CLI, and the local stage's fault controls enabled.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  E2E_BASE_URL,
  E2E_PASSWORD,
  E2E_PORT,
  E2E_STAGE_PORT,
  E2E_STAGE_URL,
  E2E_USERNAME,
} from './environment';

const root = resolve(import.meta.dirname, '..', '..');
const artifacts = join(root, 'e2e', '.artifacts');

function ensureBuilt(): void {
  const outputs = ['web/dist/index.html', 'server/dist/server.js', 'local-stage/dist/stage.js'];
  if (outputs.every((file) => existsSync(join(root, file)))) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}

function addViewer(env: NodeJS.ProcessEnv): void {
  const result = spawnSync('npm', ['run', '--silent', 'users', '--', 'add', E2E_USERNAME], {
    cwd: root,
    env,
    input: `${E2E_PASSWORD}\n`,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`Could not create the e2e viewer:\n${result.stdout}\n${result.stderr}`);
  }
}

async function waitFor(
  description: string,
  check: () => Promise<boolean>,
  options: { timeoutMs: number; gaveUp: () => string | undefined },
) {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    const reason = options.gaveUp();
    if (reason) throw new Error(reason);
    if (await check().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`Timed out after ${options.timeoutMs} ms waiting for ${description}`);
}

async function login(): Promise<string> {
  const response = await fetch(`${E2E_BASE_URL}/api/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: E2E_USERNAME, password: E2E_PASSWORD }),
  });
  const body = (await response.json()) as { token?: unknown };
  if (response.status !== 200 || typeof body.token !== 'string') {
    throw new Error(`The e2e viewer cannot log in: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.token;
}

function stop(child: ChildProcess): Promise<void> {
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

export default async function globalSetup(): Promise<() => Promise<void>> {
  ensureBuilt();
  mkdirSync(artifacts, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'tailcam-e2e-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(E2E_PORT),
    STAGE_PORT: String(E2E_STAGE_PORT),
    LOCAL_STAGE_URL: E2E_STAGE_URL,
    DATA_DIR: dataDir,
    STAGE_PROVIDER: 'local',
    STAGE_FAULTS: '1',
    LOG_LEVEL: 'warn',
  };
  addViewer(env);

  const log = openSync(join(artifacts, `product-${E2E_PORT}.log`), 'w');
  const product = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env,
    stdio: ['ignore', log, log],
    detached: true, // its own process group, so teardown can reach every child
  });
  let exited = false;
  product.once('exit', () => (exited = true));

  await waitFor(
    'Tailcam (API and local stage) to be ready',
    async () => {
      const [api, stage] = await Promise.all([
        fetch(`${E2E_BASE_URL}/api/health`),
        fetch(`${E2E_BASE_URL}/stage/health`),
      ]);
      return api.ok && stage.ok;
    },
    {
      timeoutMs: 90_000,
      gaveUp: () =>
        exited ? `scripts/start.mjs exited; see e2e/.artifacts/product-${E2E_PORT}.log` : undefined,
    },
  );
  process.env.E2E_DATA_DIR = dataDir;
  // One login for the whole run: tests that only need to be signed in reuse it, so the login rate
  // limit (which the product must keep) is spent only by the tests about signing in.
  process.env.E2E_LOGIN_TOKEN = await login();

  return async () => {
    await stop(product);
    rmSync(dataDir, { recursive: true, force: true });
  };
}
