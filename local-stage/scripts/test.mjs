// The local stage's tests (`npm test -w local-stage`): `vitest run`, and once more, for the files
// a dead test worker left without a result, if and only if that is all that went wrong. These
// tests drive libwebrtc (`@roamhq/wrtc`, native code) as real viewers; on rare runs its native
// threads crash a worker outright (a signal, no JavaScript error), which fails no assertion and
// leaves the file it was running without a result
// (docs/decisions/0027-local-stage-tests-rerun-a-crashed-worker.md). A failed test, a timeout or
// any other error fails at once, crash or not, and a crash in the second run fails the command.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WORKER_DIED, planAfterFailure } from './rerun-plan.mjs';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const vitest = join(
  dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);
const outcomeReporter = fileURLToPath(new URL('./run-outcome-reporter.mjs', import.meta.url));

/** Runs vitest with its output passed through, and says how it ended and whether a worker died. */
function runVitest(args) {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [vitest, 'run', ...args], {
      cwd: packageDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    let crashed = false;
    const pass = (stream, out) =>
      stream.on('data', (chunk) => {
        out.write(chunk);
        if (WORKER_DIED.test(chunk.toString())) crashed = true;
      });
    pass(child.stdout, process.stdout);
    pass(child.stderr, process.stderr);
    child.on('close', (code, signal) =>
      resolvePromise({ status: code ?? (signal ? 1 : 0), crashed }),
    );
  });
}

/** The first run's outcome record, or undefined when vitest ended before writing it. */
function readOutcome(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const banner = '#'.repeat(78);
const say = (lines) =>
  console.error(`\n${banner}\n${lines.map((l) => `#  ${l}`).join('\n')}\n${banner}\n`);

const args = process.argv.slice(2);
const outcomeDir = mkdtempSync(join(tmpdir(), 'tailcam-local-stage-tests-'));
const outcomeFile = join(outcomeDir, 'outcome.json');
const first = await runVitest([
  ...args,
  '--reporter=default',
  `--reporter=${outcomeReporter}`,
  `--outputFile.outcome=${outcomeFile}`,
]);
const outcome = readOutcome(outcomeFile);
rmSync(outcomeDir, { recursive: true, force: true });
if (first.status === 0) process.exit(0);

/** The files to run again (vitest filters: absolute paths, each matching only itself), or all. */
let rerun;
if (outcome === undefined) {
  if (!first.crashed) process.exit(first.status);
  say([
    'A local-stage test worker died (native crash in libwebrtc), and vitest ended without',
    "saying how each file ended. Running the whole of this run's tests once more; a second",
    'failure fails the run.',
  ]);
  rerun = [];
} else {
  const plan = planAfterFailure(outcome);
  if (plan.action === 'fail') {
    if (plan.failures.length > 0) {
      say([
        'Failed (never run again, whether or not a worker also died):',
        ...plan.failures.map((failure) => `  ${failure}`),
      ]);
    }
    process.exit(first.status);
  }
  if (plan.action === 'rerun-all') {
    say([`${plan.reason}.`, "Running the whole of this run's tests once more."]);
    rerun = [];
  } else {
    say([
      'A local-stage test worker died (native crash in libwebrtc); no test failed. Running once',
      'more only the files it left without a result; a second failure fails the run:',
      ...plan.files.map((file) => `  ${file}`),
    ]);
    rerun = plan.files.map((file) => resolve(packageDir, file));
  }
}
const second = await runVitest([...args, ...rerun]);
if (second.status === 0) {
  say(["The second run passed. The first run's worker crash is reported above."]);
}
process.exit(second.status);
