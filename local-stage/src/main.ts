/**
 * The local stage process (`node local-stage/dist/stage.js`): reads its configuration from the
 * environment, loads the participant-token secret shared with the API, and serves the stage on
 * STAGE_HOST:STAGE_PORT until SIGINT/SIGTERM.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultLogFormat } from '@tailcam/protocol/log-line';
import { STAGE_TOKEN_SECRET_FILE } from '@tailcam/protocol/secret-file';
import { unreachableBeyondWarning } from '@tailcam/protocol/stage-network';
import { ConfigError, loadStageConfig, resolveStageNetwork } from './server/config';
import { describePeerNetwork, type PeerNetwork } from './server/media/peer-network';
import { startLocalStage } from './server/start';
import { loadSharedSecret } from './env-config';
import { createStageLog } from './stage-log';

// dist/stage.js lives two levels below the repository root; relative DATA_DIR resolves there.
const root = fileURLToPath(new URL('../..', import.meta.url));

async function main(): Promise<void> {
  let config;
  let network: PeerNetwork;
  try {
    config = loadStageConfig(process.env, root);
    network = await resolveStageNetwork(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const log = createStageLog(config.logFormat ?? defaultLogFormat(process.stdout.isTTY));
  const secret = config.tokenSecret
    ? new TextEncoder().encode(config.tokenSecret)
    : await loadSharedSecret(join(config.dataDir, STAGE_TOKEN_SECRET_FILE));

  let stopping = false;
  const running = await startLocalStage({
    host: config.host,
    port: config.port,
    secret,
    faultsEnabled: config.faultsEnabled,
    syntheticCameras: config.syntheticCameras,
    limits: config.limits,
    requestTimeoutMs: config.requestTimeoutMs,
    network,
    turn: config.turn,
    // Not ready, and no account's token taken, until the API has sent its table (decision 0058).
    awaitTokenGenerations: true,
    log,
    onExitRequested: () => {
      log('exiting on request (fault injection: hard restart)');
      process.exit(1);
    },
  });
  const cameras = config.syntheticCameras.join(', ') || 'none';
  log(
    `listening on ${running.url} (synthetic cameras: ${cameras}${config.faultsEnabled ? ', faults on' : ''})`,
  );
  log(describePeerNetwork(network));
  const unreachable = unreachableBeyondWarning(config.network, network.addresses);
  if (unreachable !== undefined) log(unreachable);
  // The process stays up, answering 503 on /stage/health, so that the reason can be read there.
  const health = running.stage.health();
  if (!health.ready) log(`not ready: ${health.reason}`);

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    const forced = setTimeout(() => process.exit(0), 3000);
    forced.unref();
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // The orchestrator is the parent: if it is gone, so is the reason to run.
  process.on('disconnect', () => stop('parent gone'));
}

main().catch((error: unknown) => {
  console.error('[stage] failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
