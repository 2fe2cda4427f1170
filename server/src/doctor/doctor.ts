/**
 * `npm run doctor`: checks a deployment before (or while) it serves, one PASS / FAIL / SKIP line
 * per check: the configuration, the database and its migrations, the stage SDK file, the built
 * web app, with the ivs provider each stage through AWS (GetStage: cheap, read-only, and proof of
 * region, credentials and ARN at once), what the local stage announces to peers, whether
 * PUBLIC_URL is plain http beyond this machine (network-checks.ts; those may WARN), and with the
 * local one each TURN server (turn-check.ts). Exit code 1 when anything fails.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { GetStageCommand, IVSRealTimeClient } from '@aws-sdk/client-ivs-realtime';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { ConfigError, parseConfig, type Config } from '../config';
import { tryLockDataDir } from '../db/data-dir-lock';
import type { Env } from '../env';
import { migrations } from '../db/migrations';
import { PGLITE_DIR } from '../db/open-store';
import { openPgliteClient } from '../db/pglite-client';
import { openPostgresClient } from '../db/postgres-client';
import type { SqlClient } from '../db/sql-client';
import { describeAwsError } from '../ivs/aws-errors';
import type { IvsClient } from '../ivs/stages';
import { checkPublicUrl, checkStageNetwork, type NetworkCheckOptions } from './network-checks';
import type { CheckResult, CheckStatus } from './check-result';
import { checkTurnServers } from './turn-check';

export interface DoctorOptions {
  env: Env;
  repoRoot: string;
  createIvsClient?: (region: string) => IvsClient;
  /** Opens PostgreSQL; tests point it at a schema. */
  openPostgres?: (databaseUrl: string) => SqlClient;
  /** The host's interfaces and DNS, for the stage network line (tests give their own). */
  network?: NetworkCheckOptions;
}

const AWS_TIMEOUT_MS = 5_000;

/** A path as an operator reads it: from the repository root when inside it. */
function shownPath(config: Config, path: string): string {
  const inside = relative(config.repoRoot, path);
  return inside === '' || inside.startsWith('..') ? path : inside;
}

const pass = (name: string, detail: string): CheckResult => ({ status: 'PASS', name, detail });
const fail = (name: string, detail: string): CheckResult => ({ status: 'FAIL', name, detail });
const skip = (name: string, detail: string): CheckResult => ({ status: 'SKIP', name, detail });

function describeConfig(config: Config): string {
  const parts = [`STAGE_PROVIDER=${config.stageProvider}`];
  if (config.stageProvider === 'ivs') parts.push(`AWS_REGION=${config.ivs.region}`);
  parts.push(config.databaseUrl === undefined ? 'embedded PGlite' : 'PostgreSQL');
  parts.push(`RATE_LIMIT_STORE=${config.rateLimitStore}`);
  if (config.databaseUrl === undefined || config.rateLimitStore === 'memory') {
    parts.push('fit for one instance only (see docs/deployment.md)');
  }
  return parts.join(', ');
}

async function checkMigrations(client: SqlClient, what: string): Promise<CheckResult> {
  const name = 'database';
  try {
    await client.query('SELECT 1');
  } catch (error) {
    return fail(name, `${what} unreachable: ${(error as Error).message}`);
  }
  let applied: number[];
  try {
    const { rows } = await client.query<{ version: number }>(
      "SELECT version FROM schema_migrations WHERE to_regclass('schema_migrations') IS NOT NULL",
    );
    applied = rows.map((row) => Number(row.version));
  } catch {
    applied = []; // no schema_migrations table: nothing applied yet
  }
  const known = new Set(migrations.map((migration) => migration.version));
  const unknown = applied.filter((version) => !known.has(version));
  if (unknown.length > 0) {
    return fail(
      name,
      `${what} has migration(s) ${unknown.join(', ')} that this version of Tailcam does not know: it is older than the database`,
    );
  }
  const pending = migrations.filter((migration) => !applied.includes(migration.version));
  if (pending.length > 0) {
    return fail(
      name,
      `${what} reachable, ${pending.length} migration(s) pending (${pending.map((m) => `${m.version} ${m.name}`).join(', ')}): the server applies them when it starts; run the doctor again afterwards`,
    );
  }
  return pass(name, `${what} reachable, all ${migrations.length} migrations applied`);
}

async function checkDatabase(config: Config, options: DoctorOptions): Promise<CheckResult> {
  if (config.databaseUrl !== undefined) {
    const client = (options.openPostgres ?? defaultPostgres)(config.databaseUrl);
    try {
      return await checkMigrations(client, 'PostgreSQL');
    } finally {
      await client.close().catch(() => {});
    }
  }
  const shown = shownPath(config, config.dataDir);
  if (!existsSync(join(config.dataDir, PGLITE_DIR))) {
    return pass('database', `embedded PGlite in ${shown}: created at the server's first start`);
  }
  const attempt = tryLockDataDir(config.dataDir, 'doctor');
  if (!attempt.acquired) {
    return pass(
      'database',
      `embedded PGlite in ${shown}, open in the running ${attempt.ownerRole} (pid ${attempt.ownerPid})`,
    );
  }
  try {
    let client;
    try {
      client = await openPgliteClient(join(config.dataDir, PGLITE_DIR));
    } catch (error) {
      return fail(
        'database',
        `embedded PGlite in ${shown} cannot be opened: ${(error as Error).message}`,
      );
    }
    try {
      return await checkMigrations(client, `embedded PGlite in ${shown}`);
    } finally {
      await client.close();
    }
  } finally {
    attempt.lock.release();
  }
}

function defaultPostgres(databaseUrl: string): SqlClient {
  return openPostgresClient({ connectionString: databaseUrl, max: 1 });
}

function checkSdk(config: Config): CheckResult {
  const name = 'stage SDK';
  if (config.stageProvider === 'ivs' && config.ivs.sdkUrl !== undefined) {
    return pass(name, `redirects to IVS_SDK_URL ${config.ivs.sdkUrl} (not fetched)`);
  }
  const file = config.stageProvider === 'ivs' ? config.ivs.sdkFile : config.localStage.sdkFile;
  const shown = shownPath(config, file);
  if (!existsSync(file)) {
    return fail(
      name,
      config.stageProvider === 'ivs'
        ? `${shown} is missing: run npm install`
        : `${shown} is missing: run npm run build`,
    );
  }
  if (config.stageProvider === 'local') return pass(name, `local stage SDK ${shown}`);
  let version = '';
  try {
    const manifest: unknown = JSON.parse(
      readFileSync(join(file, '..', '..', 'package.json'), 'utf8'),
    );
    if (typeof manifest === 'object' && manifest !== null && 'version' in manifest) {
      version = ` ${String(manifest.version)}`;
    }
  } catch {
    version = '';
  }
  return pass(name, `amazon-ivs-web-broadcast${version} at ${shown}`);
}

function checkWebApp(config: Config): CheckResult {
  const index = join(config.webDistDir, 'index.html');
  const shown = shownPath(config, index);
  return existsSync(index)
    ? pass('web app', `${shown} built`)
    : fail('web app', `${shown} is missing: run npm run build`);
}

async function checkStages(config: Config, options: DoctorOptions): Promise<CheckResult[]> {
  const region = config.ivs.region!;
  const client = (options.createIvsClient ?? defaultIvsClient)(region);
  return Promise.all(
    STREAM_IDS.map(async (streamId): Promise<CheckResult> => {
      const name = `AWS ${streamId}`;
      const arn = config.ivs.stageArns[streamId]!;
      const arnRegion = arn.split(':')[3];
      if (arnRegion !== region) {
        return fail(name, `${arn} is in ${arnRegion}, but AWS_REGION is ${region}`);
      }
      try {
        const output = await client.send(new GetStageCommand({ arn }), {
          abortSignal: AbortSignal.timeout(AWS_TIMEOUT_MS),
        });
        const stageName = output.stage?.name ? ` "${output.stage.name}"` : '';
        return pass(name, `stage${stageName} ${arn} answers`);
      } catch (error) {
        return fail(name, describeAwsError(error, `GetStage on ${arn}`));
      }
    }),
  );
}

/** With the local stage: a real allocation on each TURN server (none configured: a SKIP). */
async function checkTurn(config: Config): Promise<CheckResult[]> {
  if (config.turn === undefined) {
    return [skip('TURN', 'TURN_URLS is not set: viewers whose UDP is blocked cannot watch')];
  }
  return (await checkTurnServers(config.turn)).map(({ uri, problem }) =>
    problem === undefined
      ? pass('TURN', `${uri} allocates a relay with a TURN_SECRET credential`)
      : fail('TURN', `${uri} ${problem}`),
  );
}

function defaultIvsClient(region: string): IvsClient {
  return new IVSRealTimeClient({ region, maxAttempts: 1 });
}

export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  let config: Config;
  try {
    config = parseConfig(options.env, options.repoRoot);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const rest = ['database', 'stage SDK', 'web app', 'stage network', 'public URL'].map((name) =>
      skip(name, 'configuration is invalid'),
    );
    return [fail('configuration', error.problems.join('; ')), ...rest];
  }
  const results = [pass('configuration', describeConfig(config))];
  results.push(await checkDatabase(config, options));
  results.push(checkSdk(config), checkWebApp(config));
  if (config.stageProvider === 'ivs') {
    results.push(...(await checkStages(config, options)));
  } else {
    results.push(skip('AWS', 'STAGE_PROVIDER=local: no AWS account involved'));
    results.push(...(await checkTurn(config)));
  }
  results.push(await checkStageNetwork(config, options.env, options.network));
  results.push(checkPublicUrl(config));
  return results;
}

export function formatCheck(result: CheckResult): string {
  return `${result.status}  ${result.name.padEnd(13)} ${result.detail}`;
}

export function summary(results: readonly CheckResult[]): string {
  const count = (status: CheckStatus) => results.filter((r) => r.status === status).length;
  const warned = count('WARN');
  const warnings = warned === 0 ? '' : `, ${warned} warning${warned === 1 ? '' : 's'}`;
  return `doctor: ${count('PASS')} passed, ${count('FAIL')} failed, ${count('SKIP')} skipped${warnings}`;
}
