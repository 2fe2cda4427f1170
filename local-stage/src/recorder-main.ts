/**
 * The recorder process (`node local-stage/dist/recorder.js`, docs/decisions/0072-recorder.md):
 * records each aircraft on air at the stage at STAGE_HOST:STAGE_PORT into RECORDINGS_DIR, as a
 * player would subscribe, until SIGINT/SIGTERM. scripts/start.mjs starts it after the stage and
 * restarts it when it dies; a `kill -9` loses the segment being written and nothing before it.
 * With RECORDING=off it has nothing to do and exits at once (code 0); a configuration error exits
 * with code 2.
 */
import { getPriority, setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAGE_TOKEN_SECRET_FILE } from '@tailcam/protocol/secret-file';
import { loadSharedSecret } from './env-config';
import { exitOnShutdown } from './process-shutdown';
import { ConfigError, loadRecorderConfig, type RecorderProcessConfig } from './recorder/config';
import { Recorder } from './recorder/recorder';
import { createStageLogger, type StageLogger } from './stage-log';
import { useNativeDtlsCrypto } from './dtls-native-crypto';

// dist/recorder.js lives two levels below the repository root; relative paths resolve there.
const root = fileURLToPath(new URL('../..', import.meta.url));

function configuration(): RecorderProcessConfig {
  try {
    return loadRecorderConfig(process.env, root);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

async function main(config: RecorderProcessConfig, log: StageLogger): Promise<void> {
  // Before any peer connection: werift's DTLS handshakes with Node's own crypto (decision 0110).
  useNativeDtlsCrypto();
  if (config.mode === 'off') {
    log.info('RECORDING=off: nothing to record; exiting');
    process.exit(0);
  }
  // At the stage's priority by default (decision 0111: what it receives may not wait); lowered only
  // by RECORDING_NICE, never raised above what it was started with (`nice npm start`).
  if (config.nice > getPriority()) {
    try {
      setPriority(config.nice);
    } catch (error) {
      log.warn(`recording: cannot lower the recorder's priority (${String(error)}); going on`);
    }
  }
  const secret = config.tokenSecret
    ? new TextEncoder().encode(config.tokenSecret)
    : await loadSharedSecret(join(config.dataDir, STAGE_TOKEN_SECRET_FILE));
  const recorder = new Recorder({
    stageUrl: config.stageUrl,
    secret,
    root: config.root,
    mode: config.mode,
    segmentMs: config.segmentMs,
    maxAgeMs: config.maxAgeMs,
    maxBytes: config.maxBytes,
    minFreeBytes: config.minFreeBytes,
    previewFfmpeg: config.ffmpeg,
    log,
  });
  await recorder.start();
  log.info(
    `recording ${config.mode === 'all' ? 'every publisher' : 'real encoders only'} at ${config.stageUrl} into ${config.root}`,
  );
  exitOnShutdown({ close: () => recorder.close(), log });
}

const config = configuration();
const log = createStageLogger({
  level: config.logLevel,
  format: config.logFormat,
  service: 'tailcam-recorder',
});
main(config, log).catch((error: unknown) => {
  log.fatal({ err: error }, 'failed to start');
  process.exit(1);
});
