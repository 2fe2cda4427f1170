/**
 * The accounts CLI: `npm run users -- add NAME | list | passwd NAME | disable NAME`.
 * With DATABASE_URL it talks to PostgreSQL. With the embedded PGlite it opens DATA_DIR itself
 * when no server holds it (migrating an empty one), else it asks the running server through
 * its admin socket; otherwise it says what to do.
 */
import { findRepoRoot } from '../paths';
import { ConfigError, parseStoreConfig, type StoreConfig } from '../config';
import { readEnv } from '../env';
import {
  AdminSocketUnavailableError,
  adminSocketPath,
  callAdminSocket,
  runAdminRequest,
  type AdminRequest,
  type AdminResponse,
  type UserSummary,
} from '../accounts/admin-socket';
import { readNewPassword } from './read-password';

const USAGE = `Usage: npm run users -- <command>

Commands:
  add NAME       create a viewer account (asks for its password)
  list           list the accounts
  passwd NAME    set a new password for an account
  disable NAME   disable an account (it can no longer sign in or get stream tokens)

The password is read from standard input when it is not a terminal, e.g.
  printf '%s\\n' "$PASSWORD" | npm run users -- add alice
and otherwise prompted for, without echo. It is never taken from the command line.`;

class UsageError extends Error {}

async function parseRequest(args: string[]): Promise<AdminRequest> {
  const [command, username, ...rest] = args;
  const needsName = command === 'add' || command === 'passwd' || command === 'disable';
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    throw new UsageError('');
  }
  if (command === 'list') {
    if (username !== undefined) throw new UsageError('list takes no arguments');
    return { command };
  }
  if (!needsName) throw new UsageError(`Unknown command "${command}"`);
  if (username === undefined || username === '') throw new UsageError(`${command} needs a NAME`);
  if (rest.length > 0) {
    throw new UsageError(
      `${command} takes one NAME; passwords are never given as arguments (they are read from standard input)`,
    );
  }
  if (command === 'disable') return { command, username };
  return { command, username, password: await readNewPassword(username) };
}

async function runDirect(config: StoreConfig, request: AdminRequest): Promise<AdminResponse> {
  // Loaded only here: the admin-socket path never needs the database drivers.
  const { openUserStore, DataDirBusyError } = await import('../db/open-store');
  const { createAccounts } = await import('../accounts/accounts');
  let store;
  try {
    store = await openUserStore(
      config.databaseUrl === undefined
        ? { dataDir: config.dataDir }
        : { databaseUrl: config.databaseUrl },
      'users-cli',
    );
  } catch (error) {
    if (error instanceof DataDirBusyError) return runThroughServer(config, request, error);
    throw error;
  }
  try {
    return await runAdminRequest(createAccounts(store), request);
  } finally {
    await store.close();
  }
}

async function runThroughServer(
  config: StoreConfig,
  request: AdminRequest,
  busy: { ownerPid: number; ownerRole: string },
): Promise<AdminResponse> {
  const socketPath = adminSocketPath(config.dataDir);
  try {
    return await callAdminSocket(socketPath, request);
  } catch (error) {
    if (!(error instanceof AdminSocketUnavailableError)) throw error;
    throw new Error(
      busy.ownerRole === 'server'
        ? `The Tailcam server (process ${busy.ownerPid}) holds ${config.dataDir}, but its admin socket ${socketPath} does not answer. Run this command as the user that runs the server, or stop the server and try again.`
        : `Another process (${busy.ownerPid}, ${busy.ownerRole}) is using ${config.dataDir}. Wait for it to finish, or stop it, and try again.`,
      { cause: error },
    );
  }
}

function printUsers(users: UserSummary[]): void {
  if (users.length === 0) {
    console.log('No accounts yet. Add one with: npm run users -- add NAME');
    return;
  }
  const width = Math.max(8, ...users.map((user) => user.username.length));
  console.log(`${'USERNAME'.padEnd(width)}  ${'CREATED'.padEnd(24)}  STATUS`);
  for (const user of users) {
    console.log(
      `${user.username.padEnd(width)}  ${user.createdAt.padEnd(24)}  ${user.disabled ? 'disabled' : 'active'}`,
    );
  }
}

async function main(args: string[]): Promise<number> {
  let request: AdminRequest;
  try {
    request = await parseRequest(args);
  } catch (error) {
    if (error instanceof UsageError) {
      if (error.message !== '') console.error(`error: ${error.message}\n`);
      console.error(USAGE);
      return error.message === '' ? 0 : 2;
    }
    throw error;
  }
  const repoRoot = findRepoRoot();
  const config = parseStoreConfig(readEnv(repoRoot), repoRoot);
  const response = await runDirect(config, request);
  if (!response.ok) {
    console.error(`error: ${response.error}`);
    return 1;
  }
  switch (request.command) {
    case 'add':
      console.log(`Created user "${request.username}".`);
      break;
    case 'list':
      if ('users' in response) printUsers(response.users);
      break;
    case 'passwd':
      console.log(`Password changed for "${request.username}".`);
      break;
    case 'disable':
      console.log(`Disabled "${request.username}".`);
      break;
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) console.error(error.message);
    else console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
