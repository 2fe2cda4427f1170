// Runs a command with TEST_DATABASE_URL pointing at a throwaway PostgreSQL server:
//   node scripts/with-postgres.mjs npm test -w server
// If TEST_DATABASE_URL is already set, the command just runs. Otherwise this finds Debian's
// PostgreSQL binaries (installing them with apt-get when running as root and they are missing),
// creates a cluster in a temporary directory, starts it on a free loopback port, runs the
// command, then stops the server and deletes the cluster, also on failure or a signal. The
// command's exit code is this script's exit code. Without PostgreSQL the command still runs,
// after a loud SKIPPED banner.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

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

const hasTools = (dir) =>
  ['initdb', 'pg_ctl', 'createdb'].every((tool) => existsSync(join(dir, tool)));

function findBinDir() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    // Debian links some tools onto PATH; the real directory has all of them.
    if (dir && existsSync(join(dir, 'initdb'))) {
      const real = dirname(realpathSync(join(dir, 'initdb')));
      if (hasTools(real)) return real;
    }
  }
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((version) => hasTools(join(base, version, 'bin')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(base, versions[0], 'bin') : undefined;
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

/** Runs a PostgreSQL binary as the `postgres` user when we are root (postgres refuses root). */
function pgSync(binDir, tool, args) {
  const full = join(binDir, tool);
  const [cmd, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', full, ...args]] : [full, args];
  return spawnSync(cmd, argv, { encoding: 'utf8' });
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

  let binDir = findBinDir();
  if (binDir === undefined && installPostgres()) binDir = findBinDir();
  if (binDir === undefined) {
    skipped(isRoot ? 'PostgreSQL could not be installed' : 'PostgreSQL is not installed');
    return run(command[0], command.slice(1));
  }

  const root = mkdtempSync(join(tmpdir(), 'tailcam-pg-'));
  const dataDir = join(root, 'data');
  let started = false;
  const cleanup = () => {
    if (started) {
      pgSync(binDir, 'pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      started = false;
    }
    rmSync(root, { recursive: true, force: true });
  };
  const onSignal = (signal) => {
    cleanup();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    if (isRoot) {
      chmodSync(root, 0o700);
      const { uid, gid } = userIds('postgres');
      chownSync(root, uid, gid);
    }
    const init = pgSync(binDir, 'initdb', [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--no-sync',
    ]);
    if (init.status !== 0) {
      skipped(`initdb failed: ${(init.stderr || init.stdout).trim().split('\n').pop()}`);
      cleanup();
      return run(command[0], command.slice(1));
    }
    const port = await freePort();
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off -c full_page_writes=off`;
    const start = pgSync(binDir, 'pg_ctl', [
      '-D',
      dataDir,
      '-o',
      options,
      '-l',
      join(root, 'postgres.log'),
      '-w',
      '-t',
      '60',
      'start',
    ]);
    if (start.status !== 0) {
      skipped(`the server did not start: ${(start.stderr || start.stdout).trim()}`);
      cleanup();
      return run(command[0], command.slice(1));
    }
    started = true;
    const create = pgSync(binDir, 'createdb', [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      'postgres',
      'tailcam_test',
    ]);
    if (create.status !== 0) throw new Error(`createdb failed: ${create.stderr.trim()}`);
    const url = `postgresql://postgres@127.0.0.1:${port}/tailcam_test`;
    log(`PostgreSQL ${binDir.split('/').at(-2)} running at ${url}`);
    return await run(command[0], command.slice(1), { ...process.env, TEST_DATABASE_URL: url });
  } finally {
    cleanup();
  }
}

function userIds(name) {
  const result = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const group = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (result.status !== 0 || group.status !== 0) throw new Error(`no user named ${name}`);
  return { uid: Number(result.stdout.trim()), gid: Number(group.stdout.trim()) };
}

main().then(
  (code) => process.exit(code),
  (error) => {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
