// Starts Tailcam (`npm start`, after `npm run build`): the API server, which serves the web app
// and proxies /stage/ to the stage, and, when the API reports STAGE_PROVIDER=local (from the
// environment or .env), the local stage process and the camera process, which publishes the
// synthetic cameras to the stage over WHIP. Prints the URL and the demo login once a first
// viewer could join; stops every child on Ctrl-C / SIGTERM, leaving no process behind. The stage
// and the camera process are each restarted (with backoff) if they die; the API keeps serving
// meanwhile and viewers reconnect by themselves. If the API dies, everything stops. With
// STAGE_PROVIDER=ivs the API runs alone. See docs/decisions/0023-local-stage-process-model.md and
// docs/decisions/0054-cameras-publish-over-whip.md. Plain Node: its one import of the repo's own is
// the backoff policy every retry loop of the repo shares (plain JavaScript for that reason).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { backoffPolicy } from '../protocol/src/reconnect-policy.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const apiEntry = process.env.TAILCAM_API_ENTRY ?? 'server/dist/server.js';
const stageEntry = process.env.TAILCAM_STAGE_ENTRY ?? 'local-stage/dist/stage.js';
const camerasEntry = process.env.TAILCAM_CAMERAS_ENTRY ?? 'local-stage/dist/cameras.js';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const CONFIG_ERROR_EXIT_CODE = 2;
// A child that dies is started again after 200 ms, doubling to at most 10 s (no jitter: there is
// one of each). A child that ran 30 s before dying starts the series again.
const restartPolicy = backoffPolicy({ baseMs: 200, factor: 2, maxMs: 10_000 });

// The stage listens on STAGE_HOST:STAGE_PORT; the API finds it at LOCAL_STAGE_URL. Either may be
// given: the other follows from it.
const givenStageUrl = process.env.LOCAL_STAGE_URL
  ? new URL(process.env.LOCAL_STAGE_URL)
  : undefined;
const stageHost =
  process.env.STAGE_HOST || givenStageUrl?.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
const stagePort = process.env.STAGE_PORT || givenStageUrl?.port || '8091';
const stageUrl =
  process.env.LOCAL_STAGE_URL ||
  `http://${stageHost.includes(':') ? `[${stageHost}]` : stageHost}:${stagePort}`;
const stageEnv = { ...process.env, STAGE_HOST: stageHost, STAGE_PORT: stagePort };

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

// ---- The stage: restarted with backoff when it dies. ----

let stage;
let stageStarts = 0;
let stageFailuresInARow = 0;
let stageRestartTimer;
let stageStartedAt = 0;

function startStage() {
  stageStarts += 1;
  stageStartedAt = Date.now();
  stage = spawn(process.execPath, [stageEntry], {
    cwd: root,
    env: stageEnv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const child = stage;
  child.on('error', (error) => log(`could not start the stage: ${error.message}`));
  child.on('exit', (code, signal) => {
    if (stage === child) stage = undefined;
    if (stopping) return;
    if (code === CONFIG_ERROR_EXIT_CODE) {
      log('the local stage refused its configuration (see above); stopping.');
      void shutdown(CONFIG_ERROR_EXIT_CODE);
      return;
    }
    // A stage that ran for a while before dying starts a fresh backoff series.
    stageFailuresInARow = Date.now() - stageStartedAt > 30_000 ? 1 : stageFailuresInARow + 1;
    if (!printed && stageFailuresInARow > 5) {
      log('the local stage keeps failing at start-up (see above); stopping.');
      void shutdown(1);
      return;
    }
    const delay = restartPolicy.nextDelayMs(stageFailuresInARow) ?? 10_000;
    // Bounded logging: the first restarts, then one line in ten.
    if (stageFailuresInARow <= 3 || stageFailuresInARow % 10 === 0) {
      const how = signal ? `signal ${signal}` : `code ${code}`;
      log(`the local stage stopped (${how}); restarting in ${delay} ms (restart #${stageStarts}).`);
    }
    stageRestartTimer = setTimeout(() => {
      stageRestartTimer = undefined;
      if (!stopping) startStage();
    }, delay);
  });
}

// ---- The camera process: started after the stage (it retries until the stage answers), and
// restarted with backoff when it dies, on counters of its own. It exits 0 when it has nothing to
// publish (STAGE_SYNTHETIC_CAMERAS=none): it is not started again. ----

let cameras;
let cameraStarts = 0;
let cameraFailuresInARow = 0;
let cameraRestartTimer;
let cameraStartedAt = 0;

function startCameras() {
  cameraStarts += 1;
  cameraStartedAt = Date.now();
  cameras = spawn(process.execPath, [camerasEntry], {
    cwd: root,
    env: stageEnv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const child = cameras;
  child.on('error', (error) => log(`could not start the camera process: ${error.message}`));
  child.on('exit', (code, signal) => {
    if (cameras === child) cameras = undefined;
    if (stopping || code === 0) return;
    if (code === CONFIG_ERROR_EXIT_CODE) {
      log('the camera process refused its configuration (see above); stopping.');
      void shutdown(CONFIG_ERROR_EXIT_CODE);
      return;
    }
    cameraFailuresInARow = Date.now() - cameraStartedAt > 30_000 ? 1 : cameraFailuresInARow + 1;
    if (!printed && cameraFailuresInARow > 5) {
      log('the camera process keeps failing at start-up (see above); stopping.');
      void shutdown(1);
      return;
    }
    const delay = restartPolicy.nextDelayMs(cameraFailuresInARow) ?? 10_000;
    if (cameraFailuresInARow <= 3 || cameraFailuresInARow % 10 === 0) {
      const how = signal ? `signal ${signal}` : `code ${code}`;
      log(
        `the camera process stopped (${how}); restarting in ${delay} ms (restart #${cameraStarts}).`,
      );
    }
    cameraRestartTimer = setTimeout(() => {
      cameraRestartTimer = undefined;
      if (!stopping) startCameras();
    }, delay);
  });
}

// ---- The API: its exit ends the run. ----

const api = spawn(process.execPath, [apiEntry], {
  cwd: root,
  env: { ...process.env, LOCAL_STAGE_URL: stageUrl },
  stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
});
api.on('message', (message) => {
  if (typeof message !== 'object' || message === null) return;
  if (message.type === 'configured' && stageProvider === undefined) {
    if (message.stageProvider === 'ivs') {
      stageProvider = 'ivs';
      log(
        'STAGE_PROVIDER=ivs: starting the API alone (Amazon IVS serves the video: no local stage, no demo account).',
      );
    } else if (message.stageProvider === 'local') {
      stageProvider = 'local';
      if (isBuilt(stageEntry) && isBuilt(camerasEntry)) {
        startStage();
        startCameras();
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
});
api.on('error', (error) => {
  log(`could not start the API: ${error.message}`);
  void shutdown(1);
});
api.on('exit', (code, signal) => {
  if (stopping) return;
  if (signal === 'SIGINT') return void shutdown(0); // Ctrl-C reached the API first
  log(`the API stopped (${signal ? `signal ${signal}` : `code ${code}`}); stopping.`);
  void shutdown(code ?? 1);
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
  clearTimeout(stageRestartTimer);
  clearTimeout(cameraRestartTimer);
  await Promise.all([stopChild(api), stopChild(stage), stopChild(cameras)]);
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => void shutdown(0));
}
