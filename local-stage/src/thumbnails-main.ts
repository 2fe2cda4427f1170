/**
 * The thumbnail process (`node local-stage/dist/thumbnails.js`): watches the stage at
 * STAGE_HOST:STAGE_PORT like a player, for each aircraft someone asks a picture of, and answers
 * the API on DATA_DIR/thumbnails.sock with a JPEG of its newest key frame
 * (docs/decisions/0070-thumbnails.md). scripts/start.mjs starts it beside the stage and restarts
 * it when it dies; the stage and its viewers never depend on it. A configuration error exits 2.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAGE_TOKEN_SECRET_FILE } from '@tailcam/protocol/secret-file';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { THUMBNAILS_SOCKET_FILE } from '@tailcam/protocol/thumbnails';
import { loadSharedSecret, orExitOnConfigError } from './env-config';
import { exitOnShutdown } from './process-shutdown';
import { createStageLogger, type StageLogger } from './stage-log';
import { loadThumbnailProcessConfig, type ThumbnailProcessConfig } from './thumbnails/config';
import { startThumbnailService } from './thumbnails/thumbnail-service';
import { listenOnSocket } from './thumbnails/thumbnail-socket';
import { useNativeDtlsCrypto } from './dtls-native-crypto';

// dist/thumbnails.js lives two levels below the repository root; relative DATA_DIR resolves there.
const root = fileURLToPath(new URL('../..', import.meta.url));

async function main(config: ThumbnailProcessConfig, log: StageLogger): Promise<void> {
  // Before any peer connection: werift's DTLS handshakes with Node's own crypto (decision 0110).
  useNativeDtlsCrypto();
  const secret = config.tokenSecret
    ? new TextEncoder().encode(config.tokenSecret)
    : await loadSharedSecret(join(config.dataDir, STAGE_TOKEN_SECRET_FILE));
  const service = startThumbnailService({
    stageUrl: config.stageUrl,
    secret,
    stageIds: STREAM_IDS,
    log,
    ffmpeg: config.ffmpeg,
  });
  if (spawnSync(config.ffmpeg, ['-version']).error) {
    log.warn(
      `${config.ffmpeg} cannot be run: thumbnails need ffmpeg (Debian: apt-get install ffmpeg; or set FFMPEG_PATH); /home shows placeholders meanwhile`,
    );
  }
  const socketPath = join(config.dataDir, THUMBNAILS_SOCKET_FILE);
  const server = await listenOnSocket(service, socketPath, log);
  log.info(`thumbnails of ${STREAM_IDS.join(', ')} from ${config.stageUrl} on ${socketPath}`);
  exitOnShutdown({
    log,
    close: async () => {
      service.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

const config = orExitOnConfigError(() => loadThumbnailProcessConfig(process.env, root));
const log = createStageLogger({
  level: config.logLevel,
  format: config.logFormat,
  service: 'tailcam-thumbnails',
});
main(config, log).catch((error: unknown) => {
  log.fatal({ err: error }, 'failed to start');
  process.exit(1);
});
