// The whole test command (`npm test`): type-check, lint, every workspace's tests (the server's
// with a throwaway PostgreSQL server when one can be had) and the production build in two lanes
// side by side, the local stage's load-sensitive tests alone, then the end-to-end suite in
// Chromium and Firefox against the production build. A step that fails fails the run; a step
// that cannot run says so loudly. The table at the end gives each step's time and the machine's
// load average during it (mean and peak of the 1-minute figure), with the browsers' versions.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { failureExcerpt } from '@tailcam/harness/failure-excerpt';

const root = fileURLToPath(new URL('..', import.meta.url));
const skipped = [];
/** Each step's title, seconds and load, printed at the end (also when a step fails). */
const durations = [];
const startedAt = performance.now();
const CORES = availableParallelism();

/** The 1-minute load average, read every 5 s while a step runs: its mean and peak. */
function sampleLoad() {
  const samples = [loadavg()[0]];
  const timer = setInterval(() => samples.push(loadavg()[0]), 5_000);
  return () => {
    clearInterval(timer);
    samples.push(loadavg()[0]);
    const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
    return { mean, peak: Math.max(...samples) };
  };
}

/** What a browser says of its own version, or why it has none here. */
function browserVersion(command) {
  const result = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : `${command}: not found`;
}

function printDurations() {
  const total = (performance.now() - startedAt) / 1000;
  const width = Math.max(...durations.map(({ title }) => title.length), 'total'.length);
  console.log(
    `\n[tailcam test] time per step (${CORES} cores; load: mean / peak of the 1-min average):`,
  );
  for (const { title, seconds, load } of durations) {
    const shown = load ? `  load ${load.mean.toFixed(1)} / ${load.peak.toFixed(1)}` : '';
    console.log(`  ${title.padEnd(width)}  ${seconds.toFixed(1).padStart(6)} s${shown}`);
  }
  console.log(`  ${'total'.padEnd(width)}  ${total.toFixed(1).padStart(6)} s`);
  console.log(
    `  browsers: ${browserVersion(chromiumCommand())}; ${browserVersion(firefoxCommand())}`,
  );
}

function chromiumCommand() {
  return process.env.CHROMIUM_PATH || 'chromium';
}

function firefoxCommand() {
  return process.env.FIREFOX_PATH || 'firefox-esr';
}

/** Runs one step, its output as it comes; fails the run when it fails (unless allowed). */
async function run(title, command, args, { allowStatus = [], env = {} } = {}) {
  console.log(`\n[tailcam test] ${title}`);
  const stepStartedAt = performance.now();
  const load = sampleLoad();
  const status = await new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ...env },
    });
    child.on('error', (error) => console.error(`[tailcam test] cannot run: ${error.message}`));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  durations.push({ title, seconds: (performance.now() - stepStartedAt) / 1000, load: load() });
  if (status !== 0 && !allowStatus.includes(status)) {
    printDurations();
    console.error(`\n[tailcam test] FAILED: ${title}`);
    process.exit(status);
  }
  return status;
}

/**
 * Runs one command with its output lines prefixed with `[name] `; resolves with its status and
 * its output's lines (kept for the failure excerpt).
 */
function runPrefixed(name, { command, args, env = {} }) {
  const output = [];
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const prefixLines = (stream, out) => {
      let partial = '';
      stream.on('data', (chunk) => {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          output.push(line);
          out.write(`[${name}] ${line}\n`);
        }
      });
      stream.on('end', () => {
        if (!partial) return;
        output.push(partial);
        out.write(`[${name}] ${partial}\n`);
      });
    };
    prefixLines(child.stdout, process.stdout);
    prefixLines(child.stderr, process.stderr);
    child.on('error', (error) => console.error(`[${name}] cannot run: ${error.message}`));
    child.on('close', (code, signal) => resolve({ status: code ?? (signal ? 1 : 0), output }));
  });
}

/**
 * Runs lanes side by side (one lane per core), each a list of commands run one after the other
 * (a lane stops at its first failure), each output line prefixed with its command's name. The
 * step fails if any lane fails, after all have ended. Each command's own time is printed with
 * the step's.
 */
async function runLanes(title, lanes) {
  const names = lanes.map((lane) => lane.map(({ name }) => name).join(' → '));
  console.log(`\n[tailcam test] ${title} (${names.join(' | ')})`);
  const stepStartedAt = performance.now();
  const load = sampleLoad();
  const ends = await Promise.all(
    lanes.map(async (lane) => {
      const done = [];
      for (const command of lane) {
        const commandStartedAt = performance.now();
        const { status, output } = await runPrefixed(command.name, command);
        const seconds = (performance.now() - commandStartedAt) / 1000;
        console.log(
          `[tailcam test] ${command.name}: ${status === 0 ? 'passed' : 'FAILED'} in ${seconds.toFixed(1)} s`,
        );
        done.push({ name: command.name, status, seconds, output });
        if (status !== 0) break;
      }
      return done;
    }),
  );
  durations.push({ title, seconds: (performance.now() - stepStartedAt) / 1000, load: load() });
  for (const lane of ends) {
    for (const { name, seconds } of lane) durations.push({ title: `  ${name}`, seconds });
  }
  const failed = ends.flat().filter(({ status }) => status !== 0);
  if (failed.length > 0) {
    for (const { name, output } of failed) {
      console.error(`\n[tailcam test] ${name} failed; what it said of it:`);
      for (const line of failureExcerpt(output)) console.error(`[${name}] ${line}`);
    }
    printDurations();
    console.error(
      `\n[tailcam test] FAILED: ${title}: ${failed.map(({ name }) => name).join(', ')}`,
    );
    process.exit(failed[0].status);
  }
}

/**
 * The workspaces whose tests need no database (and are quick), and every other workspace but the
 * local stage's, with a throwaway PostgreSQL server when one can be had.
 */
const QUICK_WORKSPACES = ['protocol', 'web'];
const databaseWorkspaces = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url)),
).workspaces.filter(
  (workspace) => workspace !== 'local-stage' && !QUICK_WORKSPACES.includes(workspace),
);
const workspaceTests = (workspaces) => [
  'run',
  'test',
  '--if-present',
  ...workspaces.flatMap((workspace) => ['-w', workspace]),
];

await run('Debian packages the tests use', process.execPath, ['scripts/ensure-os-packages.mjs']);
// Before the unit tests: the local stage's tests use the real WHIP encoder too.
if (
  (await run(
    'GStreamer WHIP client for the real-encoder tests',
    process.execPath,
    ['scripts/ensure-whip-client.mjs'],
    { allowStatus: [3] },
  )) === 3
) {
  skipped.push('real WHIP encoder tests (no simple-whip-client)');
}
// Two lanes, each a queue: the local stage's tests (one file at a time, mostly waiting on real
// media: about two thirds of a core) in one; the type-check, lint, the quick workspaces' tests,
// the server's and harness's tests (one file at a time; argon2 and child processes keep a core
// busy) and the production build in the other. The queues are balanced so that both lanes end
// together (docs/development.md#how-npm-test-spends-its-time). The server's tests two at a time
// ended the step ~25 s sooner, but starved the local stage's real-encoder tests beside them (a
// GStreamer publisher not on air in 15 s). The build writes only dist/ files no unit test reads.
// A few of the local stage's files (OTHER_LANE in local-stage/vitest.config.ts) run in the second
// lane, which is the shorter without them.
// The local stage's tests whose bounds need a core to themselves (LOAD_SENSITIVE in
// local-stage/vitest.config.ts) run after, alone, two files at a time (one a core), and SOLO's
// after them. On a machine of one core the two queues run as one.
const laneQueues = [
  [
    {
      name: 'local-stage',
      command: 'npm',
      args: ['run', 'test', '-w', 'local-stage'],
      env: { TAILCAM_LOCAL_STAGE_TESTS: 'beside' },
    },
  ],
  [
    { name: 'type-check', command: 'npm', args: ['run', 'typecheck'] },
    { name: 'lint', command: 'npm', args: ['run', 'lint'] },
    { name: QUICK_WORKSPACES.join(', '), command: 'npm', args: workspaceTests(QUICK_WORKSPACES) },
    {
      name: 'local-stage, other lane',
      command: 'npm',
      args: ['run', 'test', '-w', 'local-stage'],
      env: { TAILCAM_LOCAL_STAGE_TESTS: 'other-lane' },
    },
    {
      name: databaseWorkspaces.join(', '),
      command: process.execPath,
      args: ['scripts/with-postgres.mjs', 'npm', ...workspaceTests(databaseWorkspaces)],
    },
    { name: 'production build', command: 'npm', args: ['run', 'build'] },
  ],
];
await runLanes(
  'checks, unit and integration tests, production build',
  CORES >= 2 ? laneQueues : [laneQueues.flat()],
);
await run(
  "the local stage's load-sensitive tests, alone, two files at a time",
  'npm',
  ['run', 'test', '-w', 'local-stage'],
  { env: { TAILCAM_LOCAL_STAGE_TESTS: 'alone' } },
);
await run(
  "the local stage's congestion-control and camera tests, alone",
  'npm',
  ['run', 'test', '-w', 'local-stage'],
  {
    env: { TAILCAM_LOCAL_STAGE_TESTS: 'solo' },
  },
);
if (
  (await run('Chromium for the browser tests', process.execPath, ['scripts/ensure-chromium.mjs'], {
    allowStatus: [3],
  })) === 3
) {
  skipped.push('end-to-end tests (no Chromium)');
} else {
  // Two lanes (playwright.config.ts), then the specs whose bounds are times, alone.
  await run(
    'end-to-end tests (Playwright: Chromium, and Firefox over WebDriver BiDi), two lanes',
    'npx',
    ['playwright', 'test', '--project=shared-product', '--project=own-instances'],
  );
  await run('end-to-end tests whose bounds are times, one at a time', 'npx', [
    'playwright',
    'test',
    '--project=alone',
  ]);
}

printDurations();
if (skipped.length > 0) {
  console.warn(`\n[tailcam test] passed, but SKIPPED: ${skipped.join('; ')}`);
} else {
  console.log('\n[tailcam test] all steps passed');
}
