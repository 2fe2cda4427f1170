/**
 * The recorder process's configuration (docs/configuration.md#recording): environment variables,
 * read once through a schema. It shares the stage's address, `DATA_DIR` and secret with the
 * stage and the camera process (all three read the same environment).
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, integer, parseEnv } from '../env-config';
import {
  stagePlayerConfig,
  stagePlayerVariables,
  type StagePlayerConfig,
} from '../stage-player-config';
import type { RecordingMode } from './recorder';

export { ConfigError };

const MODES = ['all', 'encoders', 'off'] as const;

const envSchema = z.object({
  ...stagePlayerVariables,
  RECORDING: z
    .enum([...MODES, ''], { error: `RECORDING must be one of ${MODES.join(', ')}` })
    .optional()
    .transform((value) => (value === undefined || value === '' ? 'all' : value)),
  RECORDINGS_DIR: z.string().optional(),
  RECORDING_RETAIN_HOURS: integer('RECORDING_RETAIN_HOURS', 24, 1, 24 * 365),
  RECORDING_MAX_MB: integer('RECORDING_MAX_MB', 2048, 1, 100 * 1024 * 1024),
  RECORDING_MIN_FREE_MB: integer('RECORDING_MIN_FREE_MB', 1024, 0, 100 * 1024 * 1024),
  RECORDING_SEGMENT_MS: integer('RECORDING_SEGMENT_MS', 4000, 500, 10_000),
  RECORDING_NICE: integer('RECORDING_NICE', 0, 0, 19),
  FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
});

export interface RecorderProcessConfig extends StagePlayerConfig {
  mode: RecordingMode;
  /** Where the recordings go (default DATA_DIR/recordings). */
  root: string;
  maxAgeMs: number;
  maxBytes: number;
  minFreeBytes: number;
  segmentMs: number;
  /**
   * The recorder process's niceness: 0 by default, the stage's and the cameras' own (decision
   * 0111: a starved recorder reads its sockets late and loses what it records).
   */
  nice: number;
  /** The ffmpeg that decodes each segment's preview picture (decision 0084). */
  ffmpeg: string;
}

const MIB = 2 ** 20;

/** Reads the configuration; relative paths resolve against `root` (the repository). */
export function loadRecorderConfig(env: NodeJS.ProcessEnv, root: string): RecorderProcessConfig {
  const value = parseEnv(envSchema, env, 'recorder');
  const player = stagePlayerConfig(value, root);
  return {
    ...player,
    mode: value.RECORDING,
    root: value.RECORDINGS_DIR
      ? resolve(root, value.RECORDINGS_DIR)
      : resolve(player.dataDir, 'recordings'),
    maxAgeMs: value.RECORDING_RETAIN_HOURS * 3_600_000,
    maxBytes: value.RECORDING_MAX_MB * MIB,
    minFreeBytes: value.RECORDING_MIN_FREE_MB * MIB,
    segmentMs: value.RECORDING_SEGMENT_MS,
    nice: value.RECORDING_NICE,
    ffmpeg: value.FFMPEG_PATH,
  };
}
