// Installs the project's npm dependencies when they are missing or older than the lockfile, so
// that `npm start` and `npm test` work on a fresh clone with no other step. Uses only Node.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const lockfile = `${root}package-lock.json`;
const installed = `${root}node_modules/.package-lock.json`;

const stale = !existsSync(installed) || statSync(installed).mtimeMs < statSync(lockfile).mtimeMs;

if (stale) {
  console.log('[tailcam] installing npm dependencies (npm ci)...');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error('[tailcam] npm ci failed; see the output above.');
    process.exit(result.status ?? 1);
  }
}
