/**
 * Tailcam as `npm start` runs it, production builds, on ports of its own with a data directory of
 * its own: the one way the end-to-end tests, the benchmark and the soak start it.
 *
 * - scripts/start.mjs runs it: in `local` mode the API, the local stage and the camera process
 *   (each restarted when it dies), with the stage's fault controls on; in `ivs` mode the API alone, with no AWS
 *   credentials from this environment, so nothing it does can reach AWS.
 * - The embedded database, or PostgreSQL when `databaseUrl` is given. The embedded one starts
 *   as a copy of an empty, migrated one the accounts CLI made once (database-template.ts).
 * - Ready means what scripts/start.mjs waits for: `/api/health` answers, and in local mode the
 *   stage, asked through the API, says `ready: true`.
 * - stop() then start() is a restart of the same instance (same data: secrets and accounts).
 * - On loopback, unless `network` runs it elsewhere: in a network lab's namespace on a lab address
 *   (lab/lab-product.ts), reached from here through loopback bridges.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { seedDatabase } from './database-template';
import { operatorToken } from './operator-token';
import { ROOT } from './root';
import { stageControl, type StageControl } from './stage-control';

export { ROOT };

const START_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 10_000;

export interface Viewer {
  username: string;
  password: string;
}

export interface ProductOptions {
  /** Names the data directory (tailcam-<name>-…) in the system's temporary directory. */
  name: string;
  mode?: 'local' | 'ivs';
  port: number;
  /** The local stage's own port (local mode). */
  stagePort?: number;
  /** The metrics endpoint's port (METRICS_PORT); unset: one the system picks, so instances never collide. */
  metricsPort?: number;
  /** Where the product's output goes: written afresh by the first start, appended to after. */
  logFile: string;
  /** PostgreSQL instead of the embedded database. */
  databaseUrl?: string;
  /** More environment, e.g. IVS_STAGE_ARNS and AWS_REGION in ivs mode. */
  env?: NodeJS.ProcessEnv;
  /** Runs it elsewhere than loopback, e.g. in a network lab's namespace (lab-product.ts). */
  network?: ProductNetwork;
}

/** Where the product runs when not on this machine's loopback. */
export interface ProductNetwork {
  /** The command and arguments that run `command args` there (`ip netns exec NS …`). */
  command: (command: string, args: string[]) => [string, string[]];
  /** The address the API listens on (HOST); the stage keeps 127.0.0.1 there for its own port. */
  host: string;
  /** Where this process reaches the API and the stage's own port (loopback bridges). */
  baseUrl: string;
  stageUrl: string;
}

const apiHealth = z.object({ status: z.literal('ok') });
const stageHealth = z.object({ ready: z.boolean() });
const loginReply = z.object({ token: z.string() });

/** Builds what `npm start` would build, if any output is missing. */
function ensureBuilt(): void {
  const outputs = [
    'web/dist/index.html',
    'server/dist/server.js',
    'server/dist/users.js',
    'local-stage/dist/stage.js',
    'local-stage/dist/cameras.js',
    'local-stage/dist/thumbnails.js',
    'local-stage/dist/recorder.js',
  ];
  if (outputs.every((file) => existsSync(join(ROOT, file)))) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}

async function answers<T>(url: string, schema: z.ZodType<T>): Promise<T | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    if (!response.ok) return undefined;
    const parsed = schema.safeParse(await response.json());
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export class Product {
  readonly mode: 'local' | 'ivs';
  readonly baseUrl: string;
  /** The stage's own port: stats and fault controls, loopback only, never behind the API. */
  readonly stageUrl: string;
  readonly stage: StageControl;
  readonly dataDir: string;
  readonly logFile: string;
  readonly env: NodeJS.ProcessEnv;
  private child: ChildProcess | undefined;
  private starts = 0;
  private seeded = false;
  /** Kills the instance if this process exits first (a test runner ending a timed-out worker). */
  private readonly killOnExit = () => {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };

  constructor(readonly options: ProductOptions) {
    this.mode = options.mode ?? 'local';
    if (this.mode === 'local' && options.stagePort === undefined) {
      throw new Error('local mode needs a stagePort');
    }
    this.baseUrl = options.network?.baseUrl ?? `http://127.0.0.1:${options.port}`;
    this.stageUrl = options.network?.stageUrl ?? `http://127.0.0.1:${options.stagePort}`;
    this.stage = stageControl(this.stageUrl);
    this.dataDir = mkdtempSync(join(tmpdir(), `tailcam-${options.name}-`));
    this.logFile = options.logFile;
    this.env = this.environment();
  }

  private environment(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) {
      // No AWS credentials or profile, and no database but the one asked for.
      if (!name.startsWith('AWS_') && name !== 'DATABASE_URL') env[name] = value;
    }
    Object.assign(env, {
      HOST: this.options.network?.host ?? '127.0.0.1',
      PORT: String(this.options.port),
      DATA_DIR: this.dataDir,
      STAGE_PROVIDER: this.mode,
      // Warnings only, unless a run asks for more (PRODUCT_LOG_LEVEL=info: the stage's layer
      // choices and sessions, for reading a failed spec's log).
      LOG_LEVEL: process.env.PRODUCT_LOG_LEVEL ?? 'warn',
      // The bench asks one account for thousands of participant tokens a second; the specs and
      // the soak sign in one viewer for many joins. A spec that tests the limit sets its own.
      TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
      METRICS_PORT: String(this.options.metricsPort ?? 0),
    });
    if (this.mode === 'local') {
      Object.assign(env, {
        STAGE_PORT: String(this.options.stagePort),
        // Where the API finds the stage, beside it (this.stageUrl may be a bridge from elsewhere).
        LOCAL_STAGE_URL: `http://127.0.0.1:${this.options.stagePort}`,
        STAGE_FAULTS: '1',
        // The tests, the bench and the soak open many sessions from one address and one account;
        // the defaults are sized for one person watching.
        STAGE_SOCKETS_PER_ADDRESS: '200',
        STAGE_SESSIONS_PER_USER: '64',
        // The recorder (decision 0072) is a player of its own on every aircraft: off unless an
        // instance asks for it (the bench's recording part; e2e/recordings.spec.ts runs one beside
        // the shared product), so that the specs' and the bench's counts of the stage's sessions
        // are the viewers'.
        RECORDING: 'off',
        // Cameras that never sleep (decision 0074): a spec, a lab case or the soak that joins after
        // a quiet minute must not wait for a new WHIP session, nor find health's publishers gone.
        // The bench sets the product's default for its idle part.
        CAMERA_SLEEP_AFTER_MS: '0',
      });
    } else {
      Object.assign(env, {
        AUTH_SECRET: randomBytes(36).toString('base64'),
        AWS_EC2_METADATA_DISABLED: 'true',
      });
    }
    if (this.options.databaseUrl !== undefined) env.DATABASE_URL = this.options.databaseUrl;
    return Object.assign(env, this.options.env);
  }

  /** Runs the production accounts CLI (server/dist/users.js) against this instance's store. */
  users(args: string[], input = ''): string {
    ensureBuilt();
    this.seedDatabaseOnce();
    const result = spawnSync(process.execPath, ['server/dist/users.js', ...args], {
      cwd: ROOT,
      env: this.env,
      input,
      encoding: 'utf8',
      timeout: 180_000,
    });
    if (result.status !== 0) {
      throw new Error(`users ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
    }
    return result.stdout;
  }

  /** The embedded database's first use: a copy of the template, not an initdb of its own. */
  private seedDatabaseOnce(): void {
    if (this.seeded) return;
    this.seeded = true;
    if (this.options.databaseUrl === undefined) seedDatabase(this.dataDir, this.env);
  }

  /** Creates a viewer with the accounts CLI, as an operator would. */
  addViewer(viewer: Viewer): void {
    this.users(['add', viewer.username], `${viewer.password}\n`);
  }

  /** Starts the product and resolves once it is ready (see the file's header). */
  async start(): Promise<void> {
    if (this.child !== undefined) throw new Error(`${this.options.name} is already started`);
    ensureBuilt();
    this.seedDatabaseOnce();
    this.starts += 1;
    const log = openSync(this.logFile, this.starts === 1 ? 'w' : 'a');
    const [command, args] = this.options.network?.command(process.execPath, [
      'scripts/start.mjs',
    ]) ?? [process.execPath, ['scripts/start.mjs']];
    const child = spawn(command, args, {
      cwd: ROOT,
      env: this.env,
      stdio: ['ignore', log, log],
      detached: true, // its own process group, so stop() reaches every child
    });
    this.child = child;
    process.once('exit', this.killOnExit);
    let exited = false;
    child.once('exit', () => (exited = true));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await this.ready())) {
      if (exited) {
        this.child = undefined;
        process.off('exit', this.killOnExit);
        throw new Error(`scripts/start.mjs exited; see ${this.logFile}`);
      }
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(
          `${this.options.name} was not ready in ${START_TIMEOUT_MS / 1000} s; see ${this.logFile}`,
        );
      }
      await new Promise((done) => setTimeout(done, 150));
    }
  }

  private async ready(): Promise<boolean> {
    const [api, stage] = await Promise.all([
      answers(`${this.baseUrl}/api/health`, apiHealth),
      this.mode === 'local' ? answers(`${this.baseUrl}/stage/health`, stageHealth) : undefined,
    ]);
    return api !== undefined && (this.mode === 'ivs' || stage?.ready === true);
  }

  /** The pid of the running local stage process (the start script's child running stage.js). */
  stagePid(): number | undefined {
    return this.childPid('local-stage/dist/stage.js');
  }

  /** The pid of the running camera process (the start script's child running cameras.js). */
  camerasPid(): number | undefined {
    return this.childPid('local-stage/dist/cameras.js');
  }

  /** The pid of the running API process (the start script's child running server.js). */
  apiPid(): number | undefined {
    return this.childPid('server/dist/server.js');
  }

  /** What `npm run publish-token -- STREAM_ID` prints for this instance: the WHIP URL and token. */
  publishToken(streamId: string): { whipUrl: string; token: string } {
    const { url, token } = operatorToken('publish-token', streamId, this.env);
    return { whipUrl: url, token };
  }

  /** The pids of every process of the instance: the start script and its children. */
  pids(): number[] {
    const pid = this.child?.pid;
    if (pid === undefined) throw new Error(`${this.options.name} is not started`);
    const found = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' });
    return [pid, ...found.stdout.trim().split('\n').filter(Boolean).map(Number)];
  }

  private childPid(entry: string): number | undefined {
    const pid = this.child?.pid;
    if (pid === undefined) throw new Error(`${this.options.name} is not started`);
    const found = spawnSync('pgrep', ['-P', String(pid), '-f', entry], { encoding: 'utf8' });
    const pids = found.stdout.trim().split('\n').filter(Boolean).map(Number);
    if (pids.length > 1)
      throw new Error(`expected one ${entry} process, found [${pids.join(', ')}]`);
    return pids[0];
  }

  /** Stops the whole instance: SIGTERM, then SIGKILL to its process group after 10 s. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    process.off('exit', this.killOnExit);
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((done) => {
      const killer = setTimeout(() => {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      }, STOP_GRACE_MS);
      child.once('exit', () => {
        clearTimeout(killer);
        done();
      });
      child.kill('SIGTERM');
    });
    // Both ports free again before anything starts on them.
    const deadline = Date.now() + STOP_GRACE_MS;
    while (Date.now() < deadline) {
      const urls = [`${this.baseUrl}/api/health`];
      if (this.mode === 'local') urls.push(`${this.stageUrl}/_stats`);
      const answered = await Promise.any(urls.map((url) => fetch(url).then(() => true))).catch(
        () => false,
      );
      if (!answered) return;
      await new Promise((done) => setTimeout(done, 150));
    }
    throw new Error(`${this.options.name} still answers ${STOP_GRACE_MS / 1000} s after stopping`);
  }

  /** Stops the instance and removes its data. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  login(viewer: Viewer): Promise<Response> {
    return fetch(`${this.baseUrl}/api/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(viewer),
    });
  }

  /** The viewer's login token; throws when the login is refused. */
  async loginToken(viewer: Viewer): Promise<string> {
    const response = await this.login(viewer);
    const body: unknown = await response.json().catch(() => undefined);
    const parsed = loginReply.safeParse(body);
    if (response.status !== 200 || !parsed.success) {
      throw new Error(`${viewer.username} cannot log in: ${response.status}`);
    }
    return parsed.data.token;
  }
}
