/**
 * A throwaway PostgreSQL cluster a fault test can stop and start again: Debian's binaries, a
 * temporary directory, a loopback port (as scripts/with-postgres.mjs does, but under the test's
 * control). Returns the reason instead when PostgreSQL cannot be had here.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const isRoot = process.getuid?.() === 0;

function binDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const version = readdirSync(base)
    .filter((name) =>
      ['initdb', 'pg_ctl', 'createdb'].every((tool) => existsSync(join(base, name, 'bin', tool))),
    )
    .sort((a, b) => Number(b) - Number(a))[0];
  return version === undefined ? undefined : join(base, version, 'bin');
}

function ids(user: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export class ThrowawayPostgres {
  readonly url: string;
  private readonly dataDir: string;
  private running = false;

  private constructor(
    private readonly bin: string,
    private readonly root: string,
    readonly port: number,
  ) {
    this.dataDir = join(root, 'data');
    this.url = `postgresql://postgres@127.0.0.1:${port}/tailcam`;
  }

  /** A new, started cluster with a `tailcam` database, or the reason there cannot be one. */
  static create(port: number): ThrowawayPostgres | { unavailable: string } {
    const bin = binDir();
    if (bin === undefined) {
      return { unavailable: 'PostgreSQL is not installed (Debian: apt-get install postgresql)' };
    }
    const postgresUser = isRoot ? ids('postgres') : undefined;
    if (isRoot && postgresUser === undefined)
      return { unavailable: 'no postgres user to run it as' };
    const root = mkdtempSync(join(tmpdir(), 'tailcam-faults-pg-'));
    if (postgresUser !== undefined) {
      chmodSync(root, 0o700);
      chownSync(root, postgresUser.uid, postgresUser.gid);
    }
    const pg = new ThrowawayPostgres(bin, root, port);
    const init = pg.run('initdb', [
      '-D',
      pg.dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
    ]);
    if (init.status !== 0) {
      pg.destroy();
      return { unavailable: `initdb failed: ${init.stderr.trim().split('\n').pop()}` };
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
      'tailcam',
    ]);
    if (created.status !== 0) {
      pg.destroy();
      return { unavailable: `createdb failed: ${created.stderr.trim()}` };
    }
    return pg;
  }

  private run(tool: string, args: string[]) {
    const full = join(this.bin, tool);
    const [command, argv] = isRoot
      ? ['runuser', ['-u', 'postgres', '--', full, ...args]]
      : [full, args];
    return spawnSync(command, argv, { encoding: 'utf8', timeout: 60_000 });
  }

  /** Starts the server; returns why it could not, if it could not. */
  start(): string | undefined {
    const options = `-c listen_addresses=127.0.0.1 -p ${this.port} -k ${this.root} -c fsync=off`;
    const result = this.run('pg_ctl', [
      '-D',
      this.dataDir,
      '-o',
      options,
      '-l',
      join(this.root, 'postgres.log'),
      '-w',
      '-t',
      '30',
      'start',
    ]);
    if (result.status !== 0)
      return `PostgreSQL did not start: ${(result.stderr || result.stdout).trim()}`;
    this.running = true;
    return undefined;
  }

  /** Stops the server as an administrator would (fast: open connections are terminated). */
  stop(): void {
    if (!this.running) return;
    const result = this.run('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
    if (result.status !== 0) throw new Error(`pg_ctl stop failed: ${result.stderr}`);
    this.running = false;
  }

  destroy(): void {
    if (this.running) this.run('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
    this.running = false;
    rmSync(this.root, { recursive: true, force: true });
  }
}
