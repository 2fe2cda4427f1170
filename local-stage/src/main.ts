/**
 * The local stage process (`node local-stage/dist/stage.js`): reads its configuration from the
 * environment, loads the participant-token secret shared with the API, and serves the stage on
 * STAGE_HOST:STAGE_PORT until SIGINT/SIGTERM.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAGE_TOKEN_SECRET_FILE } from '@tailcam/protocol/secret-file';
import { unreachableBeyondWarning } from '@tailcam/protocol/stage-network';
import {
  ConfigError,
  loadStageConfig,
  resolveStageNetwork,
  type StageConfig,
} from './server/config';
import { describePeerNetwork, type PeerNetwork } from './server/media/transport/peer-network';
import { startLocalStage } from './server/start';
import { loadSharedSecret, orExitOnConfigError } from './env-config';
import { exitOnShutdown } from './process-shutdown';
import { createStageLogger, type StageLogger } from './stage-log';
import { useNativeDtlsCrypto } from './dtls-native-crypto';

// dist/stage.js lives two levels below the repository root; relative DATA_DIR resolves there.
const root = fileURLToPath(new URL('../..', import.meta.url));

/** What the peer connections announce: a name that does not resolve is a configuration error. */
async function peerNetwork(config: StageConfig): Promise<PeerNetwork> {
  try {
    return await resolveStageNetwork(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

async function main(config: StageConfig, log: StageLogger): Promise<void> {
  // Before any peer connection: werift's DTLS handshakes with Node's own crypto (decision 0110).
  useNativeDtlsCrypto();
  const network = await peerNetwork(config);
  const secret = config.tokenSecret
    ? new TextEncoder().encode(config.tokenSecret)
    : await loadSharedSecret(join(config.dataDir, STAGE_TOKEN_SECRET_FILE));

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
    publishMaxKbps: config.publishMaxKbps,
    cameraSleepAfterMs: config.cameraSleepAfterMs,
    // Not ready, and no account's token taken, until the API has sent its table (decision 0058).
    awaitTokenGenerations: true,
    log,
    onExitRequested: () => {
      log.warn('exiting on request (fault injection: hard restart)');
      process.exit(1);
    },
  });
  const cameras = config.syntheticCameras.join(', ') || 'none';
  log.info(
    `listening on ${running.url} (synthetic cameras: ${cameras}${config.faultsEnabled ? ', faults on' : ''})`,
  );
  log.info(describePeerNetwork(network));
  const unreachable = unreachableBeyondWarning(config.network, network.addresses);
  if (unreachable !== undefined) log.warn(unreachable);
  // The process stays up, answering 503 on /stage/health, so that the reason can be read there.
  const health = running.stage.health();
  if (!health.ready) log.info(`not ready: ${health.reason}`);

  exitOnShutdown({ close: () => running.close(), log });
}

const config = orExitOnConfigError(() => loadStageConfig(process.env, root));
const log = createStageLogger({ level: config.logLevel, format: config.logFormat });
main(config, log).catch((error: unknown) => {
  log.fatal({ err: error }, 'failed to start');
  process.exit(1);
});
