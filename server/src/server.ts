/**
 * Production entry point (`node server/dist/server.js`): reads the configuration, opens and
 * migrates the user store, listens, and shuts down gracefully on SIGINT/SIGTERM.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { ivsRecordings } from './recordings/ivs-recordings';
import { ivsThumbnails } from './thumbnails/ivs-thumbnails';
import { localThumbnails, type ThumbnailSource } from './thumbnails/thumbnail-source';
import type { AddressInfo } from 'node:net';
import { createAccounts } from './accounts/accounts';
import { startAdminSocket, type AdminSocket } from './accounts/admin-socket';
import { buildApp } from './app';
import { ConfigError, parseConfig, type Config } from './config';
import { withUserCache } from './db/cached-user-store';
import { DataDirBusyError, openUserStore } from './db/open-store';
import { openPostgresClient } from './db/postgres-client';
import { createPostgresRateLimitStore } from './db/postgres-rate-limit-store';
import type { SqlClient } from './db/sql-client';
import type { UserStore } from './db/user-store';
import { announceDemoViewer, ensureDemoViewer } from './demo-viewer';
import { exportAwsVariables, readEnv } from './env';
import { createLogger } from './logger';
import { ApiMetrics } from './metrics/api-metrics';
import { startMetricsServer, type RunningMetricsServer } from './metrics/metrics-server';
import { OperationsStateStore } from './operations/operations-state';
import { registerEventMetrics } from './operations/events-metrics';
import { startStageEvents, type StageEvents } from './operations/stage-events';
import { findRepoRoot } from './paths';
import { createIvsClient, createIvsStageProvider } from './providers/ivs-provider';
import { createLocalStageProvider } from './providers/local-provider';
import { stageAccountHooks, type StageProvider } from './providers/stage-provider';
import { TokenGenerationSync } from './providers/token-generation-sync';
import { loadAuthSecret, loadEventWebhookSecret, loadStageTokenSecret } from './secrets';

const SHUTDOWN_TIMEOUT_MS = 10_000;
/** `npm start` (scripts/start.mjs) restarts an API that exits otherwise, but not this one. */
const WILL_NOT_START_EXIT_CODE = 2;

function fail(message: string, exitCode = 1): never {
  console.error(`[tailcam server] ${message}`);
  process.exit(exitCode);
}

async function createStageProvider(config: Config): Promise<StageProvider> {
  if (config.stageProvider === 'local') {
    return createLocalStageProvider({
      secret: await loadStageTokenSecret(config),
      ttlMinutes: config.participantTokenMinutes,
      publicUrl: config.publicUrl,
      stageUrl: config.localStage.url,
      turn: config.turn,
    });
  }
  return createIvsStageProvider({
    client: createIvsClient(config.ivs.region!),
    stageArns: config.ivs.stageArns,
    durationMinutes: config.participantTokenMinutes,
  });
}

/** /home's pictures: the local thumbnail process, or IVS participant recording's on S3. */
function createThumbnailSource(config: Config): ThumbnailSource {
  if (config.stageProvider === 'local') return localThumbnails(config.dataDir);
  return ivsThumbnails({
    ivs: createIvsClient(config.ivs.region!),
    s3: new S3Client({ region: config.ivs.region!, maxAttempts: 2 }),
    stageArns: config.ivs.stageArns,
  });
}

function listeningUrl(config: Config, address: AddressInfo | string | null): string {
  if (config.publicUrl !== undefined) return config.publicUrl;
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

async function main(): Promise<void> {
  const repoRoot = findRepoRoot();
  let config: Config;
  try {
    const env = readEnv(repoRoot);
    exportAwsVariables(env);
    config = parseConfig(env, repoRoot);
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, WILL_NOT_START_EXIT_CODE);
    throw error;
  }
  // The orchestrator (scripts/start.mjs) starts the local stage only for an API that needs one.
  process.send?.({ type: 'configured', stageProvider: config.stageProvider });
  const logger = createLogger(config.logLevel, { format: config.logFormat });

  let store: UserStore;
  try {
    const opened = await openUserStore(
      config.databaseUrl === undefined
        ? { dataDir: config.dataDir }
        : { databaseUrl: config.databaseUrl },
      'server',
    );
    // With PGlite this process is the only writer, so it may remember user rows (see 0015).
    store = config.databaseUrl === undefined ? withUserCache(opened) : opened;
  } catch (error) {
    if (error instanceof DataDirBusyError) {
      fail(
        `${error.message}. Is Tailcam already running? Stop it first, or set another DATA_DIR.`,
        WILL_NOT_START_EXIT_CODE,
      );
    }
    logger.fatal({ err: error }, 'cannot open the user database');
    fail('Cannot open the user database; see the log above.');
  }

  const demoViewer = await ensureDemoViewer(store, config.stageProvider);
  // Shared login rate limit (decision 0030): its own small pool, so that a burst of guesses
  // never queues behind the user lookups. openUserStore has already migrated the table.
  let rateLimitClient: SqlClient | undefined;
  if (config.rateLimitStore === 'postgres' && config.databaseUrl !== undefined) {
    rateLimitClient = openPostgresClient({ connectionString: config.databaseUrl, max: 4 });
  }
  const stageProvider = await createStageProvider(config);
  const operations = new OperationsStateStore(STREAM_IDS);
  const metrics = new ApiMetrics({
    aircraft: STREAM_IDS,
    recordingsDir: config.stageProvider === 'local' ? config.recordingsDir : undefined,
  });
  // Started once the API listens (local stage only); its counts are read at each scrape.
  const events: { stage?: StageEvents } = {};
  registerEventMetrics(metrics.registry, () => events.stage);
  const app = await buildApp(config, {
    store,
    metrics,
    stageProvider,
    operations,
    thumbnails: createThumbnailSource(config),
    ...(config.stageProvider === 'ivs' && config.ivs.recordingsBucket !== undefined
      ? {
          ivsRecordings: ivsRecordings({
            s3: new S3Client({ region: config.ivs.region!, maxAttempts: 2 }),
            bucket: config.ivs.recordingsBucket,
            stageArns: config.ivs.stageArns,
          }),
        }
      : {}),
    authSecret: await loadAuthSecret(config),
    logger,
    ...(rateLimitClient === undefined
      ? {}
      : { rateLimitStore: createPostgresRateLimitStore(rateLimitClient) }),
  });

  // The local stage's table of the accounts' token generations (decision 0058).
  const generationSync =
    config.stageProvider === 'local'
      ? new TokenGenerationSync({
          stage: { url: config.localStage.url, secret: await loadStageTokenSecret(config) },
          readTable: () => store.listTokenGenerations(),
          log: logger,
        })
      : undefined;

  let adminSocket: AdminSocket | undefined;
  if (config.databaseUrl === undefined) {
    try {
      // passwd, disable and remove end the user's stage sessions, and the stage refuses the
      // participant tokens issued before, before the CLI hears back; add names the new account.
      const hooks = stageAccountHooks(stageProvider, {
        ended: (userId, count) => logger.info({ userId, count }, 'stage sessions ended'),
        failed: (userId, error) => {
          logger.warn({ err: error, userId }, 'could not tell the stage of an account change');
          generationSync?.resendSoon();
        },
      });
      adminSocket = await startAdminSocket(config.dataDir, createAccounts(store, hooks), logger);
    } catch (error) {
      logger.warn(
        { err: error },
        'admin socket unavailable: `npm run users` works only while the server is stopped',
      );
    }
  }

  let metricsServer: RunningMetricsServer | undefined;
  let closingSince: number | undefined;
  const shutdown = async (signal: string) => {
    if (closingSince !== undefined) {
      // Ctrl-C reaches the whole process group and the orchestrator then sends SIGTERM: a
      // second signal right away is that echo. A later one means "stop now".
      if (Date.now() - closingSince < 2_000) return;
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closingSince = Date.now();
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    try {
      await generationSync?.close();
      await events.stage?.close();
      await metricsServer?.close();
      await app.close();
      await adminSocket?.close();
      await rateLimitClient?.close();
      await store.close();
    } catch (error) {
      logger.error({ err: error }, 'error while shutting down');
      process.exitCode = 1;
    }
    clearTimeout(timer);
    process.exit();
  };
  process.on('SIGINT', (signal) => void shutdown(signal));
  process.on('SIGTERM', (signal) => void shutdown(signal));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    logger.fatal({ err: error }, 'cannot listen');
    await adminSocket?.close();
    await rateLimitClient?.close();
    await store.close();
    fail(`Cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  }
  try {
    metricsServer = await startMetricsServer({
      settings: config.metrics,
      api: metrics,
      stage:
        config.stageProvider === 'local'
          ? { url: config.localStage.url, secret: await loadStageTokenSecret(config) }
          : undefined,
    });
    logger.info({ url: metricsServer.url }, 'metrics listening');
  } catch (error) {
    logger.fatal({ err: error }, 'cannot listen for the metrics');
    await app.close();
    await adminSocket?.close();
    await rateLimitClient?.close();
    await store.close();
    fail(
      `Cannot listen for the metrics on ${config.metrics.host}:${config.metrics.port} (METRICS_HOST, METRICS_PORT): ${(error as Error).message}`,
    );
  }
  generationSync?.start();
  // The stage's participant events: the operator's page and the webhooks (decision 0098).
  events.stage =
    config.stageProvider === 'local'
      ? await startStageEvents({
          config,
          aircraft: STREAM_IDS,
          stage: { url: config.localStage.url, secret: await loadStageTokenSecret(config) },
          webhookSecret: await loadEventWebhookSecret(config),
          operations,
          log: logger,
        })
      : undefined;
  const url = listeningUrl(config, app.server.address());
  logger.info(
    { url, stageProvider: config.stageProvider, rateLimitStore: config.rateLimitStore },
    'Tailcam API listening',
  );
  if (demoViewer !== undefined) announceDemoViewer(demoViewer);
  process.send?.({ type: 'listening', url });
}

main().catch((error: unknown) => {
  console.error('[tailcam server] failed to start:', error);
  process.exit(1);
});
