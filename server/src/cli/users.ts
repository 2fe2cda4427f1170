/**
 * The accounts CLI: `npm run users -- add NAME | list | passwd NAME | disable NAME | remove NAME`.
 * With DATABASE_URL it talks to PostgreSQL, and tells the stage itself: it ends the sessions of
 * a user whose sign-in it ended, and gives the local stage the account's token generation. With
 * the embedded PGlite it opens DATA_DIR itself when no server holds it (migrating an empty one; no
 * stage runs then), else it asks the running server through its admin socket, and the server
 * tells the stage; otherwise it says what to do.
 */
import type { AccountsOptions } from '../accounts/accounts';
import { findRepoRoot } from '../paths';
import { ConfigError } from '../config';
import {
  parseStageControlConfig,
  parseStoreConfig,
  type StageControlConfig,
  type StoreConfig,
} from './cli-config';
import { exportAwsVariables, readEnv } from '../env';
import {
  AdminSocketUnavailableError,
  adminSocketPath,
  callAdminSocket,
  runAdminRequest,
  type AdminRequest,
  type AdminResponse,
  type UserSummary,
} from '../accounts/admin-socket';
import { confirmRemoval } from './confirm-removal';
import { readNewPassword } from './read-password';

const USAGE = `Usage: npm run users -- <command>

Commands:
  add NAME       create a viewer account (asks for its password)
  list           list the accounts
  passwd NAME    set a new password for an account
  disable NAME   disable an account (it can no longer sign in or get stream tokens)
  remove NAME    delete an account (asks for the name again; --yes when not on a terminal)

passwd, disable and remove end the account's sign-ins: login tokens issued before stop
working, and its open streams are disconnected.

The password is read from standard input when it is not a terminal, e.g.
  printf '%s\\n' "$PASSWORD" | npm run users -- add alice
and otherwise prompted for, without echo. It is never taken from the command line.`;

class UsageError extends Error {}
class DeclinedError extends Error {}

async function parseRequest(args: string[]): Promise<AdminRequest> {
  const [command, username, ...rest] = args;
  const needsName =
    command === 'add' || command === 'passwd' || command === 'disable' || command === 'remove';
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    throw new UsageError('');
  }
  if (command === 'list') {
    if (username !== undefined) throw new UsageError('list takes no arguments');
    return { command };
  }
  if (!needsName) throw new UsageError(`Unknown command "${command}"`);
  if (username === undefined || username === '') throw new UsageError(`${command} needs a NAME`);
  if (command === 'remove') {
    if (rest.some((arg) => arg !== '--yes'))
      throw new UsageError('remove takes one NAME and --yes');
    const consent = await confirmRemoval(username, {
      yes: rest.includes('--yes'),
      input: process.stdin,
      output: process.stderr,
    });
    if (consent === 'needs-yes') {
      throw new UsageError('remove needs --yes when standard input is not a terminal');
    }
    if (consent === 'declined') throw new DeclinedError(`The name differs; "${username}" was kept`);
    return { command, username };
  }
  if (rest.length > 0) {
    throw new UsageError(
      `${command} takes one NAME; passwords are never given as arguments (they are read from standard input)`,
    );
  }
  if (command === 'disable') return { command, username };
  return { command, username, password: await readNewPassword(username) };
}

/**
 * With PostgreSQL no server stands between this CLI and the accounts: it tells the stage itself,
 * best-effort (the login tokens are refused either way): a new account's token generation
 * (local stage), and after passwd, disable or remove the new generation and the end of the
 * user's sessions. What the stage missed, the API's next table gives it (decision 0058).
 */
async function directStageHooks(
  stage: StageControlConfig,
  dataDir: string,
): Promise<AccountsOptions> {
  const { stageAccountHooks } = await import('../providers/stage-provider');
  const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
  if (stage.stageProvider === 'local') {
    const { addLocalStageAccount, endLocalStageSessions } =
      await import('../providers/local-provider');
    const { loadStageTokenSecret } = await import('../secrets');
    // The stage's control routes take only a token signed with the secret it shares with the API.
    const control = {
      url: stage.localStageUrl,
      secret: await loadStageTokenSecret({ dataDir, localStage: stage.localStage }),
    };
    return stageAccountHooks(
      {
        endUserSessions: (change) => endLocalStageSessions(control, change),
        accountAdded: (account) => addLocalStageAccount(control, account),
      },
      {
        ended: (_userId, count) => {
          if (count > 0) console.log(`Ended ${count} open stream session(s).`);
        },
        failed: (_userId, error) =>
          console.error(
            `warning: could not tell the local stage of the change (${messageOf(error)}); a running API gives it the accounts' table within a minute, and open stream sessions last until the viewer leaves`,
          ),
      },
    );
  }
  if (stage.ivs.region === undefined) return {};
  const { createIvsClient, endIvsSessions } = await import('../providers/ivs-provider');
  const client = createIvsClient(stage.ivs.region);
  return stageAccountHooks(
    {
      endUserSessions: ({ userId }) =>
        endIvsSessions({ client, stageArns: stage.ivs.stageArns }, userId),
      accountAdded: async () => undefined,
    },
    {
      ended: (_userId, count) => {
        if (count > 0) console.log(`Ended ${count} open stream session(s).`);
      },
      failed: (_userId, error) =>
        console.error(
          `warning: could not end the account's open stream sessions (${messageOf(error)}); they last until the viewer leaves, and a new stream is refused`,
        ),
    },
  );
}

async function runDirect(
  config: StoreConfig,
  request: AdminRequest,
  stage: StageControlConfig,
): Promise<AdminResponse> {
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
    const hooks =
      config.databaseUrl === undefined ? {} : await directStageHooks(stage, config.dataDir);
    return await runAdminRequest(createAccounts(store, hooks), request);
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
    if (error instanceof DeclinedError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  const repoRoot = findRepoRoot();
  const env = readEnv(repoRoot);
  exportAwsVariables(env);
  const config = parseStoreConfig(env, repoRoot);
  const response = await runDirect(config, request, parseStageControlConfig(env));
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
    case 'remove':
      console.log(`Removed "${request.username}".`);
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
