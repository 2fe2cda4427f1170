// Runs a command with TEST_DATABASE_URL pointing at a throwaway PostgreSQL server:
//   node scripts/with-postgres.mjs npm test -w server
// If TEST_DATABASE_URL is already set, the command just runs. Otherwise this finds Debian's
// PostgreSQL binaries (installing them with apt-get when running as root and they are missing),
// creates a cluster in a temporary directory, starts it on a free loopback port, runs the
// command, then stops the server and deletes the cluster, also on failure or a signal. The
// command's exit code is this script's exit code. Without PostgreSQL the command still runs,
// after a loud SKIPPED banner.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { findPostgresBin, ThrowawayPostgres } from '@tailcam/harness/throwaway-postgres';

const command = process.argv.slice(2);
if (command.length === 0) {
  console.error('usage: node scripts/with-postgres.mjs <command> [args...]');
  process.exit(2);
}

const log = (message) => console.error(`[with-postgres] ${message}`);
const isRoot = process.getuid?.() === 0;

function run(cmd, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', env });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', (error) => {
      log(`cannot run ${cmd}: ${error.message}`);
      resolve(127);
    });
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1));
    });
  });
}

function installPostgres() {
  if (!isRoot) return false;
  log('PostgreSQL is not installed; installing it with apt-get (Debian package "postgresql")...');
  const quiet = { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
  let result = spawnSync(
    'apt-get',
    ['install', '-y', '--no-install-recommends', 'postgresql'],
    quiet,
  );
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], quiet);
    result = spawnSync(
      'apt-get',
      ['install', '-y', '--no-install-recommends', 'postgresql'],
      quiet,
    );
  }
  return result.status === 0;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function skipped(reason) {
  console.error(
    [
      '',
      '#'.repeat(78),
      `#  SKIPPED: PostgreSQL tests (${reason}).`,
      '#  To run them: install PostgreSQL (Debian: apt-get install postgresql) and run',
      '#  this again, or set TEST_DATABASE_URL=postgresql://user:pass@host/db yourself.',
      '#'.repeat(78),
      '',
    ].join('\n'),
  );
}

async function main() {
  if (process.env.TEST_DATABASE_URL) return run(command[0], command.slice(1));

  let bin = findPostgresBin();
  if (bin === undefined && installPostgres()) bin = findPostgresBin();
  if (bin === undefined) {
    skipped(isRoot ? 'PostgreSQL could not be installed' : 'PostgreSQL is not installed');
    return run(command[0], command.slice(1));
  }

  const created = ThrowawayPostgres.create({
    port: await freePort(),
    database: 'tailcam_test',
    bin,
  });
  if ('unavailable' in created) {
    if (created.unavailable.startsWith('createdb failed')) throw new Error(created.unavailable);
    skipped(created.unavailable);
    return run(command[0], command.slice(1));
  }
  const postgres = created;
  const onSignal = (signal) => {
    postgres.destroy();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    log(`PostgreSQL ${bin.split('/').at(-2)} running at ${postgres.url}`);
    return await run(command[0], command.slice(1), {
      ...process.env,
      TEST_DATABASE_URL: postgres.url,
    });
  } finally {
    postgres.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
