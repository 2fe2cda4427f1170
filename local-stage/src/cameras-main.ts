/**
 * The camera process (`node local-stage/dist/cameras.js`): publishes each aircraft's synthetic
 * camera to the stage at STAGE_HOST:STAGE_PORT over WHIP, as an encoder would, until
 * SIGINT/SIGTERM (docs/decisions/0054-cameras-publish-over-whip.md). It keeps trying until the
 * stage answers, and reconnects when the stage restarts. scripts/start.mjs starts it after the
 * stage and restarts it when it dies. With STAGE_SYNTHETIC_CAMERAS=none it has nothing to do and
 * exits at once (code 0); a configuration error exits with code 2.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAGE_TOKEN_SECRET_FILE } from '@tailcam/protocol/secret-file';
import { loadCameraProcessConfig, type CameraProcessConfig } from './cameras/config';
import { startCameraPublishers } from './cameras/start-cameras';
import { loadSharedSecret, orExitOnConfigError } from './env-config';
import { exitOnShutdown } from './process-shutdown';
import { createStageLogger, type StageLogger } from './stage-log';

// dist/cameras.js lives two levels below the repository root; relative DATA_DIR resolves there.
const root = fileURLToPath(new URL('../..', import.meta.url));

async function main(config: CameraProcessConfig, log: StageLogger): Promise<void> {
  if (config.stageIds.length === 0) {
    log.info('STAGE_SYNTHETIC_CAMERAS=none: no synthetic camera to publish; exiting');
    process.exit(0);
  }
  const secret = config.tokenSecret
    ? new TextEncoder().encode(config.tokenSecret)
    : await loadSharedSecret(join(config.dataDir, STAGE_TOKEN_SECRET_FILE));

  const running = startCameraPublishers({
    stageUrl: config.stageUrl,
    secret,
    stageIds: config.stageIds,
    camera: config.camera,
    log,
  });
  const { width, height, fps, simulcast } = config.camera;
  log.info(
    `publishing ${config.stageIds.join(', ')} (${width}x${height}@${fps}${simulcast ? ', simulcast' : ''}) to ${config.stageUrl}/stage/whip/`,
  );

  exitOnShutdown({ close: () => running.close(), log });
}

const config = orExitOnConfigError(() => loadCameraProcessConfig(process.env, root));
const log = createStageLogger({
  level: config.logLevel,
  format: config.logFormat,
  service: 'tailcam-cameras',
});
main(config, log).catch((error: unknown) => {
  log.fatal({ err: error }, 'failed to start');
  process.exit(1);
});
