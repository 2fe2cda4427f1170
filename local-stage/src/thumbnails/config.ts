/**
 * The thumbnail process's configuration: the stage's address, secret and DATA_DIR, read from the
 * same environment as the stage's and the camera process's, and where ffmpeg is.
 */
import { z } from 'zod';
import { ConfigError, parseEnv } from '../env-config';
import {
  stagePlayerConfig,
  stagePlayerVariables,
  type StagePlayerConfig,
} from '../stage-player-config';

export { ConfigError };

const envSchema = z.object({
  ...stagePlayerVariables,
  FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
});

export interface ThumbnailProcessConfig extends StagePlayerConfig {
  ffmpeg: string;
}

/** Reads the configuration from `env`; throws a ConfigError naming every bad variable. */
export function loadThumbnailProcessConfig(
  env: NodeJS.ProcessEnv,
  root: string,
): ThumbnailProcessConfig {
  const value = parseEnv(envSchema, env, 'thumbnail process');
  return { ...stagePlayerConfig(value, root), ffmpeg: value.FFMPEG_PATH };
}
