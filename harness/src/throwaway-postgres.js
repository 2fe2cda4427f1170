// A throwaway PostgreSQL cluster: Debian's binaries, a temporary directory, a loopback port, a
// database; stopped and started again at will, destroyed with its files. The e2e database fault
// test and scripts/with-postgres.mjs (the server's PostgreSQL tests) both start theirs here.
// Plain JavaScript with its types beside it (throwaway-postgres.d.ts), because
// scripts/with-postgres.mjs runs under plain Node with no TypeScript loader.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

const isRoot = process.getuid?.() === 0;

const hasTools = (dir) =>
  ['initdb', 'pg_ctl', 'createdb'].every((tool) => existsSync(join(dir, tool)));

/** @returns {string | undefined} */
export function findPostgresBin() {
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

function userIds(name) {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

const lastLine = (result) => (result.stderr || result.stdout).trim().split('\n').pop();

export class ThrowawayPostgres {
  /** @private */
  constructor(bin, root, port, database) {
    this.bin = bin;
    this.root = root;
    this.port = port;
    this.dataDir = join(root, 'data');
    this.url = `postgresql://postgres@127.0.0.1:${port}/${database}`;
    this.running = false;
  }

  /** A new, started cluster with the database, or the reason there cannot be one. */
  static create({ port, database = 'tailcam', bin = findPostgresBin() }) {
    if (bin === undefined) {
      return { unavailable: 'PostgreSQL is not installed (Debian: apt-get install postgresql)' };
    }
    const postgresUser = isRoot ? userIds('postgres') : undefined;
    if (isRoot && postgresUser === undefined)
      return { unavailable: 'no postgres user to run it as' };
    const root = mkdtempSync(join(tmpdir(), 'tailcam-pg-'));
    if (postgresUser !== undefined) {
      chmodSync(root, 0o700);
      chownSync(root, postgresUser.uid, postgresUser.gid);
    }
    const pg = new ThrowawayPostgres(bin, root, port, database);
    const init = pg.run('initdb', [
      '-D',
      pg.dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--no-sync',
    ]);
    if (init.status !== 0) {
      pg.destroy();
      return { unavailable: `initdb failed: ${lastLine(init)}` };
    }
    const started = pg.start();
    if (started !== undefined) {
      pg.destroy();
      return { unavailable: started };
    }
    const created = pg.run('createdb', [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      'postgres',
      database,
    ]);
    if (created.status !== 0) {
      pg.destroy();
      return { unavailable: `createdb failed: ${lastLine(created)}` };
    }
    return pg;
  }

  /** Runs a PostgreSQL binary, as the `postgres` user when we are root (postgres refuses root). */
  run(tool, args) {
    const full = join(this.bin, tool);
    const [command, argv] = isRoot
      ? ['runuser', ['-u', 'postgres', '--', full, ...args]]
      : [full, args];
    return spawnSync(command, argv, { encoding: 'utf8', timeout: 90_000 });
  }

  start() {
    const options =
      `-c listen_addresses=127.0.0.1 -p ${this.port} -k ${this.root}` +
      ' -c fsync=off -c full_page_writes=off';
    const result = this.run('pg_ctl', [
      '-D',
      this.dataDir,
      '-o',
      options,
      '-l',
      join(this.root, 'postgres.log'),
      '-w',
      '-t',
      '60',
      'start',
    ]);
    if (result.status !== 0)
      return `PostgreSQL did not start: ${(result.stderr || result.stdout).trim()}`;
    this.running = true;
    return undefined;
  }

  stop() {
    if (!this.running) return;
    const result = this.run('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
    if (result.status !== 0) throw new Error(`pg_ctl stop failed: ${result.stderr}`);
    this.running = false;
  }

  destroy() {
    if (this.running) this.run('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
    this.running = false;
    rmSync(this.root, { recursive: true, force: true });
  }
}
