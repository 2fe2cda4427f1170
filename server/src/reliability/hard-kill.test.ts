/**
 * Nothing lost on a hard kill: the server is killed with SIGKILL at random moments in
 * the middle of a loop of `users add` / `passwd` / `disable` / `remove`, then started again on
 * the same data directory with no manual step, with the embedded database and with PostgreSQL.
 * Every change whose command reported success must be there: an active account signs in with its
 * current password, a disabled or removed one cannot. A command cut off by the kill may or may
 * not have been applied (it did not report success): its account is left out of the check until
 * a later command succeeds on it. The stale lock and admin socket the killed server leaves
 * behind must never block the restart.
 *
 * `TAILCAM_HARD_KILLS` sets the kills per database (2 in `npm test`; `npm run soak:kills` runs 20).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkApi } from '../test/api-process';
import { bundleEntry } from '../test/bundle';
import { tempDir } from '../test/helpers';
import { temporarySchemaForTest } from '../test/postgres-schema';

const KILLS = Number(process.env.TAILCAM_HARD_KILLS ?? 2);
const testDatabaseUrl = process.env.TEST_DATABASE_URL;
const serverDir = fileURLToPath(new URL('../..', import.meta.url));
const USERNAMES = ['ann', 'ben', 'cat', 'dev'];

let server: { file: string; remove(): void };
let cli: { file: string; remove(): void };

beforeAll(async () => {
  [server, cli] = await Promise.all([
    bundleEntry('src/server.ts'),
    bundleEntry('src/cli/users.ts'),
  ]);
});
afterAll(() => {
  server?.remove();
  cli?.remove();
});

/**
 * What the loop knows for sure of an account: only commands that reported success change it;
 * undefined while a command on it has not reported. `password` is the last one set, if any.
 */
type Known = { state: 'active' | 'disabled' | 'absent'; password?: string } | undefined;

interface Running {
  child: ChildProcess;
  url: string;
}

async function startServer(env: Record<string, string>): Promise<Running> {
  const api = forkApi(server.file, { LOG_LEVEL: 'error', ...env });
  return { child: api.child, url: await api.listening };
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

function users(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli.file, ...args], {
      cwd: serverDir,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', () => resolve(null));
    child.on('exit', (code) => resolve(code));
    child.stdin.end(stdin);
  });
}

/** One command on a random account, chosen from what is known of it; true if it reported done. */
async function oneCommand(known: Map<string, Known>, env: NodeJS.ProcessEnv): Promise<boolean> {
  const username = USERNAMES[randomInt(USERNAMES.length)]!;
  const now = known.get(username);
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const choices =
    now === undefined
      ? ['add', 'remove']
      : now.state === 'absent'
        ? ['add']
        : ['passwd', 'disable', 'remove'];
  const command = choices[randomInt(choices.length)]!;
  // Until it reports, the command may or may not land: the account is uncertain meanwhile.
  known.set(username, undefined);
  const code =
    command === 'add' || command === 'passwd'
      ? await users([command, username], env, `${password}\n`)
      : await users(
          command === 'remove' ? ['remove', username, '--yes'] : [command, username],
          env,
        );
  if (code !== 0) return false; // not reported as done: stays uncertain
  if (command === 'add') known.set(username, { state: 'active', password });
  // passwd leaves a disabled account disabled (it only changes the password)
  else if (command === 'passwd') known.set(username, { state: now?.state ?? 'active', password });
  else if (command === 'disable')
    known.set(username, { state: 'disabled', password: now?.password });
  else known.set(username, { state: 'absent', password: now?.password });
  return true;
}

async function signInStatus(url: string, username: string, password: string): Promise<number> {
  const response = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return response.status;
}

async function killLoop(
  env: Record<string, string>,
): Promise<{ reported: number; checked: number }> {
  const known = new Map<string, Known>(USERNAMES.map((name) => [name, { state: 'absent' }]));
  let reported = 0;
  let checked = 0;
  let running = await startServer(env);
  for (let kill = 0; kill < KILLS; kill += 1) {
    // Commands back to back until the kill, which comes at a random moment once a command has
    // reported since the (re)start: on a busy machine one command (a process start and an argon2
    // hash) can outlast any fixed random delay, and a round with nothing reported tests nothing.
    let killed = false;
    let reportedThisRound = 0;
    const loop = (async () => {
      while (!killed) {
        if (await oneCommand(known, env)) {
          reported += 1;
          reportedThisRound += 1;
        }
      }
    })();
    const progressDeadline = Date.now() + 120_000;
    while (reportedThisRound === 0 && Date.now() < progressDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, randomInt(0, 2_000)));
    killed = true;
    await killHard(running.child);
    await loop; // the command in flight ends, reported or not, before the restart

    running = await startServer(env);
    // Each account as last reported, signing in with the last password it was given.
    for (const [username, state] of known) {
      if (state?.password === undefined) continue;
      const status = await signInStatus(running.url, username, state.password);
      expect(status, `${username}, ${state.state}, after kill ${kill + 1}`).toBe(
        state.state === 'active' ? 200 : 401,
      );
      checked += 1;
    }
  }
  await killHard(running.child);
  return { reported, checked };
}

describe('a hard kill in the middle of account changes', { timeout: 600_000 }, () => {
  it(`loses nothing a command reported, with the embedded database (${KILLS} kills)`, async () => {
    const dataDir = join(tempDir('tailcam-kill-'), 'data');
    const { reported, checked } = await killLoop({ DATA_DIR: dataDir, DATABASE_URL: '' });
    console.log(`embedded database: ${KILLS} kills, ${reported} commands, ${checked} checks`);
    expect(checked).toBeGreaterThanOrEqual(KILLS);
    expect(existsSync(join(dataDir, 'server.lock')), 'the last kill left its lock').toBe(true);
  });

  it.skipIf(testDatabaseUrl === undefined)(
    `loses nothing a command reported, with PostgreSQL (${KILLS} kills)`,
    async () => {
      const { databaseUrl } = await temporarySchemaForTest(testDatabaseUrl!, 'tailcam_kill');
      const { reported, checked } = await killLoop({
        DATA_DIR: join(tempDir('tailcam-kill-'), 'data'),
        DATABASE_URL: databaseUrl,
      });
      console.log(`PostgreSQL: ${KILLS} kills, ${reported} commands, ${checked} checks`);
      expect(checked).toBeGreaterThanOrEqual(KILLS);
    },
  );
});
