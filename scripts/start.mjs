// Starts Tailcam (`npm start`, after `npm run build`): the API server, which serves the web app
// and proxies /stage/ to the stage, and, when the API reports STAGE_PROVIDER=local (from the
// environment or .env), the local stage process, the camera process, which publishes the
// synthetic cameras to the stage over WHIP, the recorder, which records what is on air, and the
// thumbnail process, which makes /home's pictures. Prints the URL and the demo login once a first
// viewer could join; stops every child on Ctrl-C / SIGTERM, leaving no process behind. Each child
// (the API too) is restarted with backoff if it dies, and the log says so; the others keep serving
// meanwhile and viewers reconnect by themselves. With
// STAGE_PROVIDER=ivs the API runs alone. See docs/decisions/0023-local-stage-process-model.md and
// docs/decisions/0054-cameras-publish-over-whip.md. On a terminal (or with LOG_FORMAT=pretty) the
// children write JSON lines to it and it prints them through pino-pretty, one look for every
// process; otherwise they write their lines straight to its standard output. Plain Node: its
// imports of the repo's own are the backoff policy every retry loop of the repo shares and, for
// a terminal only, the log look the API shares (plain JavaScript for that reason).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { backoffPolicy } from '../protocol/src/reconnect-policy.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// The repository's `.env` under the process environment, as the API reads it (server/src/env.ts):
// every child gets the same configuration, so that the stage and the camera process find the
// DATA_DIR, the secret and the ports the API was given there.
const dotEnv = new URL('../.env', import.meta.url);
const env = {
  ...(existsSync(dotEnv) ? parseEnv(readFileSync(dotEnv, 'utf8')) : {}),
  ...process.env,
};
const apiEntry = env.TAILCAM_API_ENTRY ?? 'server/dist/server.js';
const stageEntry = env.TAILCAM_STAGE_ENTRY ?? 'local-stage/dist/stage.js';
const camerasEntry = env.TAILCAM_CAMERAS_ENTRY ?? 'local-stage/dist/cameras.js';
const thumbnailsEntry = env.TAILCAM_THUMBNAILS_ENTRY ?? 'local-stage/dist/thumbnails.js';
const recorderEntry = env.TAILCAM_RECORDER_ENTRY ?? 'local-stage/dist/recorder.js';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const CONFIG_ERROR_EXIT_CODE = 2;
// A child that dies is started again after 200 ms, doubling to at most 10 s (no jitter: there is
// one of each). A child that ran 30 s before dying starts the series again.
const restartPolicy = backoffPolicy({ baseMs: 200, factor: 2, maxMs: 10_000 });

// The stage listens on STAGE_HOST:STAGE_PORT; the API finds it at LOCAL_STAGE_URL. Either may be
// given: the other follows from it.
const givenStageUrl = env.LOCAL_STAGE_URL ? new URL(env.LOCAL_STAGE_URL) : undefined;
const stageHost = env.STAGE_HOST || givenStageUrl?.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
const stagePort = env.STAGE_PORT || givenStageUrl?.port || '8091';
const stageUrl =
  env.LOCAL_STAGE_URL ||
  `http://${stageHost.includes(':') ? `[${stageHost}]` : stageHost}:${stagePort}`;
const stageEnv = { ...env, STAGE_HOST: stageHost, STAGE_PORT: stagePort };

// Lines for a person with LOG_FORMAT=pretty, or with LOG_FORMAT unset on a terminal, as each
// process chooses for itself (defaultLogFormat): the children then write JSON lines into a pipe,
// and each is printed here. Any other LOG_FORMAT is left to the children, who refuse a wrong one.
const prettyLines =
  env.LOG_FORMAT === 'pretty' || ((env.LOG_FORMAT ?? '') === '' && process.stdout.isTTY === true);
const prettyOut = prettyLines ? await prettyStdout() : undefined;

/**
 * Standard output through pino-pretty, as each process's own logger prints on a terminal; loaded
 * only when lines are printed so.
 */
async function prettyStdout() {
  const { prettyDestination } = await import('../protocol/src/pretty-log.js');
  return prettyDestination(process.stdout, { colorize: process.stdout.isTTY === true });
}

function isBuilt(entry) {
  if (existsSync(new URL(entry, `file://${root}`))) return true;
  console.error(`[tailcam] ${entry} is missing: run \`npm run build\` first (npm start does).`);
  return false;
}

if (!isBuilt(apiEntry)) process.exit(1);

const log = (message) => console.log(`[tailcam] ${message}`);
let stopping = false;
let printed = false;
let apiUrl;
let demoViewer;
/** 'local' or 'ivs', as the API reports it once its configuration is valid. */
let stageProvider;

// ---- Every child (the API, the stage, the camera process): restarted with backoff when it
// dies, on counters of its own. A child that exits 2 refused its configuration: everything stops.
// One that keeps failing before Tailcam was ever ready stops everything too. ----

/**
 * Starts `entry` and keeps it running. `onExit(code, signal)` may return 'done' (the child has
 * nothing more to do: not started again) or 'stop' (the whole run stops). An `optional` child
 * that keeps failing at start-up is restarted with backoff, never the reason to stop.
 */
function supervise({
  name,
  entry,
  env,
  stdio,
  onStart = () => {},
  onExit = () => undefined,
  optional = false,
}) {
  const state = { child: undefined, starts: 0, failuresInARow: 0, startedAt: 0, timer: undefined };
  const start = () => {
    state.starts += 1;
    state.startedAt = Date.now();
    const child = spawn(process.execPath, [entry], {
      cwd: root,
      env: prettyOut ? { ...env, LOG_FORMAT: 'json' } : env,
      stdio: prettyOut ? [stdio[0], 'pipe', ...stdio.slice(2)] : stdio,
    });
    state.child = child;
    if (prettyOut && child.stdout) {
      createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) =>
        prettyOut.write(line),
      );
    }
    onStart(child);
    child.on('error', (error) => log(`could not start ${name}: ${error.message}`));
    child.on('exit', (code, signal) => {
      if (state.child === child) state.child = undefined;
      if (stopping) return;
      const verdict = onExit(code, signal);
      if (verdict === 'done') return;
      if (verdict === 'stop') return void shutdown(code ?? 1);
      if (code === CONFIG_ERROR_EXIT_CODE) {
        log(`${name} refused its configuration (see above); stopping.`);
        return void shutdown(CONFIG_ERROR_EXIT_CODE);
      }
      // A child that ran for a while before dying starts a fresh backoff series.
      state.failuresInARow = Date.now() - state.startedAt > 30_000 ? 1 : state.failuresInARow + 1;
      if (!printed && !optional && state.failuresInARow > 5) {
        log(`${name} keeps failing at start-up (see above); stopping.`);
        return void shutdown(1);
      }
      const delay = restartPolicy.nextDelayMs(state.failuresInARow);
      // Bounded logging: the first restarts, then one line in ten.
      if (state.failuresInARow <= 3 || state.failuresInARow % 10 === 0) {
        const how = signal ? `signal ${signal}` : `code ${code}`;
        log(`${name} stopped (${how}); restarting in ${delay} ms (restart #${state.starts}).`);
      }
      state.timer = setTimeout(() => {
        state.timer = undefined;
        if (!stopping) start();
      }, delay);
    });
  };
  start();
  return {
    get child() {
      return state.child;
    },
    cancelRestart: () => clearTimeout(state.timer),
  };
}

let stage;
let cameras;
let thumbnails;
let recorder;

function startLocalStage() {
  stage = supervise({
    name: 'the local stage',
    entry: stageEntry,
    env: stageEnv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // Started after the stage (it retries until the stage answers). It exits 0 when it has nothing
  // to publish (STAGE_SYNTHETIC_CAMERAS=none): it is not started again.
  cameras = supervise({
    name: 'the camera process',
    entry: camerasEntry,
    env: stageEnv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    onExit: (code) => (code === 0 ? 'done' : undefined),
  });
  // The recorder (docs/decisions/0072-recorder.md): a player of the stage's like any other, so
  // its death or restart costs no viewer anything. It exits 0 with RECORDING=off: not restarted.
  recorder = supervise({
    name: 'the recorder',
    entry: recorderEntry,
    env: stageEnv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    onExit: (code) => (code === 0 ? 'done' : undefined),
  });
  // The thumbnail process watches the stage like a player for /home's pictures
  // (docs/decisions/0070-thumbnails.md): nobody waits for it, and its faults cost no viewer.
  if (!isBuilt(thumbnailsEntry)) return log('no thumbnails: /home shows placeholders.');
  thumbnails = supervise({
    name: 'the thumbnail process',
    entry: thumbnailsEntry,
    env: stageEnv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    optional: true,
  });
}

// ---- The API: restarted like the others (viewers' players reconnect by themselves). ----

function onApiMessage(message) {
  if (typeof message !== 'object' || message === null) return;
  if (message.type === 'configured' && stageProvider === undefined) {
    if (message.stageProvider === 'ivs') {
      stageProvider = 'ivs';
      log(
        'STAGE_PROVIDER=ivs: starting the API alone (Amazon IVS serves the video: no local stage, no demo account).',
      );
    } else if (message.stageProvider === 'local') {
      stageProvider = 'local';
      if (isBuilt(stageEntry) && isBuilt(camerasEntry) && isBuilt(recorderEntry)) {
        startLocalStage();
      } else {
        void shutdown(1);
      }
    }
  }
  if (message.type === 'listening' && typeof message.url === 'string') apiUrl = message.url;
  if (
    message.type === 'demo-viewer' &&
    typeof message.username === 'string' &&
    typeof message.password === 'string'
  ) {
    demoViewer = { username: message.username, password: message.password };
  }
}

const api = supervise({
  name: 'the API',
  entry: apiEntry,
  env: { ...env, LOCAL_STAGE_URL: stageUrl },
  stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  onStart: (child) => child.on('message', onApiMessage),
  // Ctrl-C reached the API first: the person stopped Tailcam.
  onExit: (_code, signal) => (signal === 'SIGINT' ? 'stop' : undefined),
});

// ---- Ready: the API answers and, with a local stage, a join would succeed through it. ----

/** Why the local stage last said it is not ready (its health's `reason`), for the give-up line. */
let stageNotReadyReason;

async function ok(url, check) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    if (!check) return response.ok;
    const body = await response.json().catch(() => undefined);
    if (typeof body?.reason === 'string') stageNotReadyReason = body.reason;
    return response.ok && check(body);
  } catch {
    return false;
  }
}

async function waitUntilReady() {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!stopping && Date.now() < deadline) {
    if (
      apiUrl &&
      (await ok(new URL('/api/health', apiUrl))) &&
      (stageProvider === 'ivs' ||
        (await ok(new URL('/stage/health', apiUrl), (body) => body?.ready === true)))
    ) {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

waitUntilReady().then((ready) => {
  if (stopping) return;
  if (!ready) {
    log(
      !apiUrl
        ? 'the API did not report that it is listening in time; stopping.'
        : stageProvider === 'ivs'
          ? `the API did not answer at ${apiUrl}/api/health in time; stopping.`
          : stageNotReadyReason
            ? `the local stage is not ready: ${stageNotReadyReason}; stopping.`
            : `the local stage did not become reachable through ${apiUrl}/stage/ in time; stopping.`,
    );
    void shutdown(1);
    return;
  }
  printed = true;
  const lines = ['', `Tailcam is running at ${apiUrl}`];
  if (demoViewer) {
    lines.push(`Demo login: ${demoViewer.username} / ${demoViewer.password}`);
  } else if (stageProvider === 'ivs') {
    lines.push('Sign in with your account (`npm run users -- add NAME` creates one).');
  } else {
    lines.push('Sign in with your account (`npm run users -- passwd demo` resets the demo login).');
  }
  lines.push('Press Ctrl-C to stop.', '');
  console.log(lines.join('\n'));
});

// ---- Stopping: every child, bounded, then exit. ----

function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  const children = [api, stage, cameras, thumbnails, recorder];
  for (const supervised of children) supervised?.cancelRestart();
  await Promise.all(children.map((supervised) => stopChild(supervised?.child)));
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => void shutdown(0));
}
