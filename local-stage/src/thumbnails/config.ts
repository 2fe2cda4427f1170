/**
 * The thumbnail process's configuration: the stage's address, secret and DATA_DIR, read from the
 * same environment as the stage's and the camera process's, and where ffmpeg is.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import type { LogFormat, LogLevelName } from '@tailcam/protocol/log-line';
import { stageUrl } from '../cameras/config';
import {
  ConfigError,
  integer,
  logFormatVariable,
  logLevelVariable,
  parseEnv,
  tokenSecretVariable,
} from '../env-config';

export { ConfigError };

const envSchema = z.object({
  STAGE_PORT: integer('STAGE_PORT', 8091, 1, 65535),
  STAGE_HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  STAGE_TOKEN_SECRET: tokenSecretVariable,
  FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
  LOG_LEVEL: logLevelVariable,
  LOG_FORMAT: logFormatVariable,
});

export interface ThumbnailProcessConfig {
  stageUrl: string;
  dataDir: string;
  tokenSecret: string | undefined;
  ffmpeg: string;
  logLevel: LogLevelName | undefined;
  logFormat: LogFormat | undefined;
}

/** Reads the configuration from `env`; throws a ConfigError naming every bad variable. */
export function loadThumbnailProcessConfig(
  env: NodeJS.ProcessEnv,
  root: string,
): ThumbnailProcessConfig {
  const value = parseEnv(envSchema, env, 'thumbnail process');
  return {
    stageUrl: stageUrl(value.STAGE_HOST, value.STAGE_PORT),
    dataDir: resolve(root, value.DATA_DIR),
    tokenSecret: value.STAGE_TOKEN_SECRET,
    ffmpeg: value.FFMPEG_PATH,
    logLevel: value.LOG_LEVEL,
    logFormat: value.LOG_FORMAT,
  };
}
