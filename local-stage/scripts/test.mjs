// The local stage's tests (`npm test -w local-stage`): `vitest run`, once more if, and only if, a
// test worker process died under it. These tests drive libwebrtc (`@roamhq/wrtc`, native code) as
// real viewers; on rare runs its native threads crash a worker outright (a signal, no JavaScript
// error), which fails no assertion and leaves no result for the file it was running
// (docs/decisions/0027-local-stage-tests-rerun-a-crashed-worker.md). A failed assertion is never
// run again, and a crash in the second run fails the command.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const vitest = join(
  dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);
const WORKER_CRASH = /Worker exited unexpectedly/;

/** Runs vitest with its output passed through, and says how it ended and whether a worker died. */
function runVitest(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', ...args], {
      cwd: packageDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    let crashed = false;
    const pass = (stream, out) =>
      stream.on('data', (chunk) => {
        out.write(chunk);
        if (WORKER_CRASH.test(chunk.toString())) crashed = true;
      });
    pass(child.stdout, process.stdout);
    pass(child.stderr, process.stderr);
    child.on('close', (code, signal) => resolve({ status: code ?? (signal ? 1 : 0), crashed }));
  });
}

const args = process.argv.slice(2);
const first = await runVitest(args);
if (first.status === 0) process.exit(0);
if (!first.crashed) process.exit(first.status);

const banner = '#'.repeat(78);
console.error(
  `\n${banner}\n#  A local-stage test worker died (native crash in libwebrtc, no assertion failed).\n` +
    `#  Running the local stage's tests once more; a second failure fails the run.\n${banner}\n`,
);
const second = await runVitest(args);
if (second.status === 0) {
  console.error(
    `\n${banner}\n#  The second run passed. The first run's worker crash is reported above.\n${banner}\n`,
  );
}
process.exit(second.status);
