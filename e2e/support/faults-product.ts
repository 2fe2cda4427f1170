/**
 * A Tailcam instance of a spec's own, started as `npm start` starts it (scripts/start.mjs: the
 * API and the local stage, production builds) on ports of its own, with its own data directory
 * and optionally a PostgreSQL: fault tests stop, kill and restart it without touching the product
 * the global setup shares with the other specs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';

const root = resolve(import.meta.dirname, '..', '..');
const artifacts = join(root, 'e2e', '.artifacts');

export interface ProductOptions {
  /** Names the log file: e2e/.artifacts/<name>.log. */
  name: string;
  port: number;
  stagePort: number;
  databaseUrl?: string;
}

async function waitFor(
  description: string,
  check: () => Promise<boolean>,
  options: { timeoutMs: number; gaveUp?: () => string | undefined },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    const reason = options.gaveUp?.();
    if (reason) throw new Error(reason);
    if (await check().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 150));
  }
  throw new Error(`Timed out after ${options.timeoutMs} ms waiting for ${description}`);
}

export class Product {
  readonly baseUrl: string;
  readonly stageUrl: string;
  readonly dataDir: string;
  readonly logFile: string;
  private child: ChildProcess | undefined;
  private starts = 0;

  constructor(readonly options: ProductOptions) {
    this.baseUrl = `http://127.0.0.1:${options.port}`;
    this.stageUrl = `http://127.0.0.1:${options.stagePort}`;
    this.dataDir = mkdtempSync(join(tmpdir(), `tailcam-${options.name}-`));
    mkdirSync(artifacts, { recursive: true });
    this.logFile = join(artifacts, `${options.name}.log`);
  }

  get env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(this.options.port),
      STAGE_PORT: String(this.options.stagePort),
      LOCAL_STAGE_URL: this.stageUrl,
      DATA_DIR: this.dataDir,
      STAGE_PROVIDER: 'local',
      STAGE_FAULTS: '1',
      LOG_LEVEL: 'warn',
      ...(this.options.databaseUrl === undefined ? {} : { DATABASE_URL: this.options.databaseUrl }),
    };
  }

  /** Runs the production accounts CLI (server/dist/users.js) against this instance's store. */
  users(args: string[], input?: string): string {
    const result = spawnSync(process.execPath, ['server/dist/users.js', ...args], {
      cwd: root,
      env: this.env,
      input: input ?? '',
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (result.status !== 0) {
      throw new Error(`users ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
    }
    return result.stdout;
  }

  addViewer(username: string, password: string): void {
    this.users(['add', username], `${password}\n`);
  }

  /** Starts scripts/start.mjs and waits until the API and the stage (through it) answer. */
  async start(): Promise<void> {
    if (this.child !== undefined) throw new Error('already started');
    this.starts += 1;
    const log = openSync(this.logFile, this.starts === 1 ? 'w' : 'a');
    const child = spawn(process.execPath, ['scripts/start.mjs'], {
      cwd: root,
      env: this.env,
      stdio: ['ignore', log, log],
      detached: true, // its own process group, so stop() can reach every child
    });
    this.child = child;
    let exited = false;
    child.once('exit', () => (exited = true));
    await waitFor(
      `${this.options.name} (API and local stage) to be ready`,
      async () => {
        const [api, stage] = await Promise.all([
          fetch(`${this.baseUrl}/api/health`),
          fetch(`${this.baseUrl}/stage/health`),
        ]);
        return api.ok && stage.ok;
      },
      {
        timeoutMs: 60_000,
        gaveUp: () => (exited ? `scripts/start.mjs exited; see ${this.logFile}` : undefined),
      },
    );
  }

  /** The pid of the running local stage process (the start script's child running stage.js). */
  stagePid(): number | undefined {
    const pid = this.child?.pid;
    if (pid === undefined) throw new Error('not started');
    const found = spawnSync('pgrep', ['-P', String(pid), '-f', 'local-stage/dist/stage.js'], {
      encoding: 'utf8',
    });
    const pids = found.stdout.trim().split('\n').filter(Boolean).map(Number);
    if (pids.length > 1) throw new Error(`expected one stage process, found [${pids.join(', ')}]`);
    return pids[0];
  }

  /** Stops the whole instance (SIGTERM, then SIGKILL to its process group after 10 s). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((done) => {
      const killer = setTimeout(() => {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      }, 10_000);
      child.once('exit', () => {
        clearTimeout(killer);
        done();
      });
      child.kill('SIGTERM');
    });
    // Both ports free again before anything starts on them.
    await waitFor(
      `${this.options.name} to release its ports`,
      async () => {
        const answered = await Promise.any([
          fetch(`${this.baseUrl}/api/health`).then(() => true),
          fetch(`${this.stageUrl}/_stats`).then(() => true),
        ]).catch(() => false);
        return !answered;
      },
      { timeoutMs: 10_000 },
    );
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  async login(username: string, password: string): Promise<Response> {
    return fetch(`${this.baseUrl}/api/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
  }

  async loginToken(username: string, password: string): Promise<string> {
    const response = await this.login(username, password);
    const body = (await response.json()) as { token?: unknown };
    if (response.status !== 200 || typeof body.token !== 'string') {
      throw new Error(`cannot log in: ${response.status} ${JSON.stringify(body)}`);
    }
    return body.token;
  }

  async stageStats(): Promise<StageStats> {
    const response = await fetch(`${this.stageUrl}/_stats`);
    if (!response.ok) throw new Error(`/_stats answered ${response.status}`);
    return (await response.json()) as StageStats;
  }
}

export interface StageStats {
  sockets: number;
  peerConnections: number;
  stages: Record<string, { participants: number; peerConnections: number }>;
  process: { rssBytes: number; uptimeMs: number };
}

/** Stores the login token before any page script runs, as a signed-in browser would have it. */
export async function signIn(page: Page, loginToken: string): Promise<void> {
  await page.addInitScript((value) => {
    if (sessionStorage.getItem('faults-signed-in')) return;
    sessionStorage.setItem('faults-signed-in', '1');
    localStorage.setItem('token', value);
  }, loginToken);
}

/**
 * Counts top-level navigations (loads and reloads) of the page: a recovery "without a reload"
 * leaves it unchanged.
 */
export function countLoads(page: Page): () => number {
  let loads = 0;
  page.on('load', () => (loads += 1));
  return () => loads;
}

/** The id of the video track the player shows now (undefined before the first one). */
export function videoTrackId(page: Page): Promise<string | undefined> {
  return page.getByLabel(/^Live video from /).evaluate((element: HTMLVideoElement) => {
    const stream = element.srcObject;
    return stream instanceof MediaStream ? stream.getVideoTracks()[0]?.id : undefined;
  });
}
