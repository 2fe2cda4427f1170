import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createAccounts } from '../accounts/accounts';
import { startAdminSocket } from '../accounts/admin-socket';
import { verifyPassword } from '../auth/passwords';
import { tryLockDataDir } from '../db/data-dir-lock';
import { bundleEntry } from '../test/bundle';
import { freshStore, tempDir } from '../test/helpers';
import { temporarySchemaForTest } from '../test/postgres-schema';
import type { FastifyBaseLogger } from 'fastify';

const serverDir = fileURLToPath(new URL('../..', import.meta.url));
const testDatabaseUrl = process.env.TEST_DATABASE_URL;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let bundledCli: { file: string; remove(): void };

beforeAll(async () => {
  bundledCli = await bundleEntry('src/cli/users.ts');
});
afterAll(() => bundledCli?.remove());

/** Runs the CLI as built by `npm run build`; `fromSource` runs it as `npm run users` does. */
function users(
  args: string[],
  options: {
    dataDir: string;
    stdin?: string;
    databaseUrl?: string;
    fromSource?: boolean;
    env?: NodeJS.ProcessEnv;
  },
): Promise<CliResult> {
  const entry = options.fromSource ? ['--import', 'tsx', 'src/cli/users.ts'] : [bundledCli.file];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: serverDir,
      env: {
        ...process.env,
        DATA_DIR: options.dataDir,
        DATABASE_URL: options.databaseUrl ?? '',
        ...options.env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

const silentLog = { info() {}, error() {}, warn() {} } as unknown as FastifyBaseLogger;

/** A data directory held by this (live) process, as a running server would hold it. */
async function runningServerDataDir() {
  const dataDir = tempDir('tailcam-cli-');
  const attempt = tryLockDataDir(dataDir, 'server');
  if (!attempt.acquired) throw new Error('could not lock');
  const store = await freshStore();
  const socket = await startAdminSocket(dataDir, createAccounts(store), silentLog);
  onTestFinished(async () => {
    await socket.close();
    attempt.lock.release();
  });
  return { dataDir, store };
}

describe('users CLI', () => {
  it('works on an empty data directory with no server running: it migrates, adds and lists', async () => {
    const dataDir = join(tempDir('tailcam-cli-'), 'data');
    const added = await users(['add', 'alice'], { dataDir, stdin: 'correct horse\n' });
    expect(added).toMatchObject({ code: 0, stdout: 'Created user "alice".\n' });
    const listed = await users(['list'], { dataDir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^USERNAME\s+CREATED\s+STATUS\nalice\s+\S+Z\s+active\n$/);
  });

  it('goes through the running server and manages accounts there', async () => {
    const { dataDir, store } = await runningServerDataDir();
    expect(await users(['add', 'alice'], { dataDir, stdin: 'correct horse\n' })).toMatchObject({
      code: 0,
    });
    const alice = await store.findByUsername('alice');
    expect(alice?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(alice!.passwordHash, 'correct horse')).toBe(true);

    expect(await users(['passwd', 'ALICE'], { dataDir, stdin: 'new horse\r\n' })).toMatchObject({
      code: 0,
      stdout: 'Password changed for "ALICE".\n',
    });
    const changed = await store.findByUsername('alice');
    expect(await verifyPassword(changed!.passwordHash, 'new horse')).toBe(true);

    expect(await users(['disable', 'alice'], { dataDir })).toMatchObject({ code: 0 });
    const listed = await users(['list'], { dataDir });
    expect(listed.stdout).toMatch(/alice\s+\S+\s+disabled/);
  });

  it('removes an account only with --yes when standard input is not a terminal', async () => {
    const { dataDir, store } = await runningServerDataDir();
    await users(['add', 'alice'], { dataDir, stdin: 'correct horse\n' });
    const unconfirmed = await users(['remove', 'alice'], { dataDir, stdin: 'alice\n' });
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain(
      'remove needs --yes when standard input is not a terminal',
    );
    expect(await store.findByUsername('alice')).toBeDefined();

    expect(await users(['remove', 'ALICE', '--yes'], { dataDir })).toMatchObject({
      code: 0,
      stdout: 'Removed "ALICE".\n',
    });
    expect(await store.findByUsername('alice')).toBeUndefined();
    expect((await users(['remove', 'alice', '--yes'], { dataDir })).stderr.trim()).toBe(
      'error: No user named "alice"',
    );
  });

  it('says clearly when a name is taken, a password is empty or a user is unknown', async () => {
    const { dataDir } = await runningServerDataDir();
    await users(['add', 'alice'], { dataDir, stdin: 'correct horse\n' });
    const results = await Promise.all([
      users(['add', 'Alice'], { dataDir, stdin: 'x\n' }),
      users(['add', 'bob'], { dataDir, stdin: '\n' }),
      users(['add', 'carol'], { dataDir, stdin: '' }),
      users(['passwd', 'nobody'], { dataDir, stdin: 'x\n' }),
      users(['disable', 'nobody'], { dataDir }),
      users(['add', 'bad name!'], { dataDir, stdin: 'x\n' }),
    ]);
    expect(results.map((result) => [result.code, result.stderr.trim()])).toEqual([
      [1, 'error: A user named "Alice" already exists'],
      [1, 'error: Password is empty'],
      [1, 'error: Password is empty'],
      [1, 'error: No user named "nobody"'],
      [1, 'error: No user named "nobody"'],
      [
        1,
        'error: "bad name!" is not a valid username: use 1 to 64 letters, digits, or . _ @ - (starting with a letter or digit)',
      ],
    ]);
  });

  it('never takes a password from the command line, and explains its usage', async () => {
    const dataDir = tempDir('tailcam-cli-');
    const withPassword = await users(['add', 'alice', 'secret'], { dataDir, fromSource: true });
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('passwords are never given as arguments');
    const unknown = await users(['delete', 'alice'], { dataDir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "delete"');
    expect(unknown.stderr).toContain('Usage: npm run users -- <command>');
  });

  it('says what to do when a live process holds the data directory without an admin socket', async () => {
    const dataDir = tempDir('tailcam-cli-');
    writeFileSync(
      join(dataDir, 'server.lock'),
      JSON.stringify({ pid: process.pid, role: 'server', startedAt: new Date().toISOString() }),
    );
    const result = await users(['list'], { dataDir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The Tailcam server (process ${process.pid}) holds ${dataDir}`);
    expect(result.stderr).toContain('stop the server and try again');
  });

  it.skipIf(testDatabaseUrl === undefined)(
    'talks to PostgreSQL directly when DATABASE_URL is set',
    async () => {
      const { schema, databaseUrl, admin } = await temporarySchemaForTest(
        testDatabaseUrl!,
        'tailcam_cli',
      );
      const dataDir = tempDir('tailcam-cli-');
      expect(await users(['add', 'dora'], { dataDir, databaseUrl, stdin: 'pw\n' })).toMatchObject({
        code: 0,
      });
      const { rows } = await admin.query(`SELECT id, username FROM ${schema}.users`);
      expect(rows).toEqual([{ id: expect.any(String), username: 'dora' }]);

      // No server stands between: the CLI asks the local stage itself to end dora's sessions.
      const asked: string[] = [];
      const stage = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          asked.push(`${request.method} ${request.url} ${body}`);
          response.writeHead(200, { 'content-type': 'application/json' }).end('{"ended":1}');
        });
      });
      await new Promise<void>((resolve) => stage.listen(0, '127.0.0.1', resolve));
      onTestFinished(() => new Promise<void>((resolve) => stage.close(() => resolve())));
      const localStageUrl = `http://127.0.0.1:${(stage.address() as AddressInfo).port}`;
      const changed = await users(['passwd', 'dora'], {
        dataDir,
        databaseUrl,
        stdin: 'new pw\n',
        env: { LOCAL_STAGE_URL: localStageUrl },
      });
      expect(changed).toMatchObject({
        code: 0,
        stdout: 'Ended 1 open stream session(s).\nPassword changed for "dora".\n',
      });
      expect(asked).toEqual([
        `POST /_control/end-user-sessions {"userId":"${String(rows[0].id)}","tokenGeneration":1}`,
      ]);
      // With no stage answering, the change still holds and the CLI says what was left.
      const removed = await users(['remove', 'dora', '--yes'], {
        dataDir,
        databaseUrl,
        env: { LOCAL_STAGE_URL: 'http://127.0.0.1:1' },
      });
      expect(removed.code).toBe(0);
      expect(removed.stderr).toMatch(/^warning: could not tell the local stage of the change/);
      expect((await admin.query(`SELECT id FROM ${schema}.users`)).rows).toEqual([]);
    },
  );
});
