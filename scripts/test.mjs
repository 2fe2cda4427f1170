// The whole test command (`npm test`): type-check and lint side by side, every workspace's tests
// (the local stage's beside the others, which get a throwaway PostgreSQL server when one can be
// had), then the end-to-end suite in Chromium against the production build. A step that fails fails the run; a step that cannot run says so loudly.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const skipped = [];
/** Each step's title and seconds, printed at the end (also when a step fails). */
const durations = [];
const startedAt = performance.now();

function printDurations() {
  const total = (performance.now() - startedAt) / 1000;
  const width = Math.max(...durations.map(({ title }) => title.length));
  console.log('\n[tailcam test] time per step:');
  for (const { title, seconds } of durations) {
    console.log(`  ${title.padEnd(width)}  ${seconds.toFixed(1).padStart(6)} s`);
  }
  console.log(`  ${'total'.padEnd(width)}  ${total.toFixed(1).padStart(6)} s`);
}

function run(title, command, args, { allowStatus = [], env = {} } = {}) {
  console.log(`\n[tailcam test] ${title}`);
  const stepStartedAt = performance.now();
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  durations.push({ title, seconds: (performance.now() - stepStartedAt) / 1000 });
  const status = result.status ?? 1;
  if (status !== 0 && !allowStatus.includes(status)) {
    printDurations();
    console.error(`\n[tailcam test] FAILED: ${title}`);
    process.exit(status);
  }
  return status;
}

/**
 * Runs independent commands side by side (one lane per core), each output line prefixed with its
 * lane's name; the step fails if any lane fails, after all have ended. Each lane's own time is
 * printed with the step's.
 */
async function runLanes(title, lanes) {
  console.log(`\n[tailcam test] ${title} (${lanes.map(({ name }) => name).join(' | ')})`);
  const stepStartedAt = performance.now();
  const ends = await Promise.all(
    lanes.map(
      ({ name, command, args, env = {} }) =>
        new Promise((resolve) => {
          const laneStartedAt = performance.now();
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
              for (const line of lines) out.write(`[${name}] ${line}\n`);
            });
            stream.on('end', () => partial && out.write(`[${name}] ${partial}\n`));
          };
          prefixLines(child.stdout, process.stdout);
          prefixLines(child.stderr, process.stderr);
          child.on('error', (error) => console.error(`[${name}] cannot run: ${error.message}`));
          child.on('close', (code, signal) => {
            const seconds = (performance.now() - laneStartedAt) / 1000;
            const status = code ?? (signal ? 1 : 0);
            console.log(
              `[tailcam test] ${name}: ${status === 0 ? 'passed' : 'FAILED'} in ${seconds.toFixed(1)} s`,
            );
            resolve({ name, status, seconds });
          });
        }),
    ),
  );
  durations.push({ title, seconds: (performance.now() - stepStartedAt) / 1000 });
  for (const { name, seconds } of ends) durations.push({ title: `  ${name}`, seconds });
  const failed = ends.filter(({ status }) => status !== 0);
  if (failed.length > 0) {
    printDurations();
    console.error(
      `\n[tailcam test] FAILED: ${title}: ${failed.map(({ name }) => name).join(', ')}`,
    );
    process.exit(failed[0].status);
  }
}

/** Every workspace but the local stage's, whose WebRTC tests get a lane (a core) of their own. */
const otherWorkspaces = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url)),
).workspaces.filter((workspace) => workspace !== 'local-stage');

run('Debian packages the tests use', process.execPath, ['scripts/ensure-os-packages.mjs']);
await runLanes('type-check, lint and format', [
  { name: 'type-check', command: 'npm', args: ['run', 'typecheck'] },
  { name: 'lint', command: 'npm', args: ['run', 'lint'] },
]);
// Before the unit tests: the local stage's tests use the real WHIP encoder too.
if (
  run(
    'GStreamer WHIP client for the real-encoder tests',
    process.execPath,
    ['scripts/ensure-whip-client.mjs'],
    { allowStatus: [3] },
  ) === 3
) {
  skipped.push('real WHIP encoder tests (no simple-whip-client)');
}
// The local stage's tests run one file at a time, as do the server's on two cores (vitest's
// default): side by side they take the longer one's time, not the sum. The local stage's tests
// whose bounds need a core to themselves (LOAD_SENSITIVE in local-stage/vitest.config.ts) run
// after, alone.
await runLanes('unit and integration tests', [
  {
    name: 'local-stage',
    command: 'npm',
    args: ['run', 'test', '-w', 'local-stage'],
    env: { TAILCAM_LOCAL_STAGE_TESTS: 'beside' },
  },
  {
    name: otherWorkspaces.join(', '),
    command: process.execPath,
    args: [
      'scripts/with-postgres.mjs',
      'npm',
      'run',
      'test',
      '--if-present',
      ...otherWorkspaces.flatMap((workspace) => ['-w', workspace]),
    ],
  },
]);
run("the local stage's load-sensitive tests, alone", 'npm', ['run', 'test', '-w', 'local-stage'], {
  env: { TAILCAM_LOCAL_STAGE_TESTS: 'alone' },
});
run('production build', 'npm', ['run', 'build']);
if (
  run('Chromium for the browser tests', process.execPath, ['scripts/ensure-chromium.mjs'], {
    allowStatus: [3],
  }) === 3
) {
  skipped.push('end-to-end tests (no Chromium)');
} else {
  run('end-to-end tests (Playwright, Chromium)', 'npx', ['playwright', 'test']);
}

printDurations();
if (skipped.length > 0) {
  console.warn(`\n[tailcam test] passed, but SKIPPED: ${skipped.join('; ')}`);
} else {
  console.log('\n[tailcam test] all steps passed');
}
