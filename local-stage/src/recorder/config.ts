/**
 * The recorder process's configuration (docs/configuration.md#recording): environment variables,
 * read once through a schema. It shares the stage's address, `DATA_DIR` and secret with the
 * stage and the camera process (all three read the same environment).
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import type { LogFormat, LogLevelName } from '@tailcam/protocol/log-line';
import {
  ConfigError,
  integer,
  logFormatVariable,
  logLevelVariable,
  parseEnv,
  tokenSecretVariable,
} from '../env-config';
import { stageUrl } from '../cameras/config';
import type { RecordingMode } from './recorder';

export { ConfigError };

const MODES = ['all', 'encoders', 'off'] as const;

const envSchema = z.object({
  STAGE_PORT: integer('STAGE_PORT', 8091, 1, 65535),
  STAGE_HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  STAGE_TOKEN_SECRET: tokenSecretVariable,
  RECORDING: z
    .enum([...MODES, ''], { error: `RECORDING must be one of ${MODES.join(', ')}` })
    .optional()
    .transform((value) => (value === undefined || value === '' ? 'all' : value)),
  RECORDINGS_DIR: z.string().optional(),
  RECORDING_RETAIN_HOURS: integer('RECORDING_RETAIN_HOURS', 24, 1, 24 * 365),
  RECORDING_MAX_MB: integer('RECORDING_MAX_MB', 2048, 1, 100 * 1024 * 1024),
  RECORDING_MIN_FREE_MB: integer('RECORDING_MIN_FREE_MB', 1024, 0, 100 * 1024 * 1024),
  RECORDING_SEGMENT_MS: integer('RECORDING_SEGMENT_MS', 2000, 500, 10_000),
  LOG_LEVEL: logLevelVariable,
  LOG_FORMAT: logFormatVariable,
});

export interface RecorderProcessConfig {
  stageUrl: string;
  dataDir: string;
  tokenSecret: string | undefined;
  mode: RecordingMode;
  /** Where the recordings go (default DATA_DIR/recordings). */
  root: string;
  maxAgeMs: number;
  maxBytes: number;
  minFreeBytes: number;
  segmentMs: number;
  logLevel: LogLevelName | undefined;
  logFormat: LogFormat | undefined;
}

const MIB = 2 ** 20;

/** Reads the configuration; relative paths resolve against `root` (the repository). */
export function loadRecorderConfig(env: NodeJS.ProcessEnv, root: string): RecorderProcessConfig {
  const value = parseEnv(envSchema, env, 'recorder');
  const dataDir = resolve(root, value.DATA_DIR);
  return {
    stageUrl: stageUrl(value.STAGE_HOST, value.STAGE_PORT),
    dataDir,
    tokenSecret: value.STAGE_TOKEN_SECRET,
    mode: value.RECORDING,
    root: value.RECORDINGS_DIR
      ? resolve(root, value.RECORDINGS_DIR)
      : resolve(dataDir, 'recordings'),
    maxAgeMs: value.RECORDING_RETAIN_HOURS * 3_600_000,
    maxBytes: value.RECORDING_MAX_MB * MIB,
    minFreeBytes: value.RECORDING_MIN_FREE_MB * MIB,
    segmentMs: value.RECORDING_SEGMENT_MS,
    logLevel: value.LOG_LEVEL,
    logFormat: value.LOG_FORMAT,
  };
}
