// The whole test command (`npm test`): type-check, lint, every workspace's tests (with a
// throwaway PostgreSQL server when one can be had), then the end-to-end suite in Chromium against
// the production build. A step that fails fails the run; a step that cannot run says so loudly.
import { spawnSync } from 'node:child_process';
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

function run(title, command, args, { allowStatus = [] } = {}) {
  console.log(`\n[tailcam test] ${title}`);
  const stepStartedAt = performance.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env });
  durations.push({ title, seconds: (performance.now() - stepStartedAt) / 1000 });
  const status = result.status ?? 1;
  if (status !== 0 && !allowStatus.includes(status)) {
    printDurations();
    console.error(`\n[tailcam test] FAILED: ${title}`);
    process.exit(status);
  }
  return status;
}

run('Debian packages the tests use', process.execPath, ['scripts/ensure-os-packages.mjs']);
run('type-check', 'npm', ['run', 'typecheck']);
run('lint and format', 'npm', ['run', 'lint']);
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
run('unit and integration tests', process.execPath, [
  'scripts/with-postgres.mjs',
  'npm',
  'run',
  'test:unit',
]);
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
