/**
 * The camera process's configuration: environment variables, read once through a schema. It
 * shares the stage's address, secret and `STAGE_SYNTHETIC_CAMERAS` with the stage process (both
 * read the same environment) and owns the cameras' picture settings.
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
  syntheticCamerasVariable,
  tokenSecretVariable,
} from '../env-config';

export { ConfigError };

const MAX_WIDTH = 1280;
const MAX_HEIGHT = 720;

const envSchema = z.object({
  // The stage's own port: 0 (any free port) names no stage to reach.
  STAGE_PORT: integer('STAGE_PORT', 8091, 1, 65535),
  STAGE_HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  STAGE_TOKEN_SECRET: tokenSecretVariable,
  STAGE_SYNTHETIC_CAMERAS: syntheticCamerasVariable,
  STAGE_CAMERA_WIDTH: integer('STAGE_CAMERA_WIDTH', 640, 160, MAX_WIDTH),
  STAGE_CAMERA_HEIGHT: integer('STAGE_CAMERA_HEIGHT', 360, 90, MAX_HEIGHT),
  STAGE_CAMERA_FPS: integer('STAGE_CAMERA_FPS', 30, 1, 30),
  STAGE_CAMERA_IDLE_MS: integer('STAGE_CAMERA_IDLE_MS', 5000, 0, 600_000),
  STAGE_CAMERA_SIMULCAST: z
    .enum(['0', '1', 'true', 'false', ''])
    .optional()
    .transform((value) => value !== '0' && value !== 'false'),
  LOG_LEVEL: logLevelVariable,
  LOG_FORMAT: logFormatVariable,
});

export interface CameraProcessConfig {
  /** http://host:port of the stage process (no path). */
  stageUrl: string;
  dataDir: string;
  /** The shared participant-token secret when given directly; else read from `dataDir`. */
  tokenSecret: string | undefined;
  /** The aircraft to publish a synthetic camera for (none: the process has nothing to do). */
  stageIds: readonly string[];
  /** `simulcast`: three encodings of each camera (simulcast.ts); on unless set to 0 or false. */
  camera: { width: number; height: number; fps: number; idleMs: number; simulcast: boolean };
  /** The least level a record is written at; unset: `info` (as the stage's). */
  logLevel: LogLevelName | undefined;
  /** Unset: readable lines on a terminal, JSON lines otherwise (as the stage's). */
  logFormat: LogFormat | undefined;
}

/**
 * Reads the configuration from `env`; relative paths resolve against `root` (the repository).
 * Throws a ConfigError naming every bad variable.
 */
export function loadCameraProcessConfig(env: NodeJS.ProcessEnv, root: string): CameraProcessConfig {
  const value = parseEnv(envSchema, env, 'camera process');
  const problems: string[] = [];
  if (value.STAGE_CAMERA_WIDTH % 2 !== 0 || value.STAGE_CAMERA_HEIGHT % 2 !== 0) {
    problems.push('STAGE_CAMERA_WIDTH and STAGE_CAMERA_HEIGHT must be even (I420 video)');
  }
  if (value.STAGE_CAMERA_HEIGHT > value.STAGE_CAMERA_WIDTH) {
    problems.push('STAGE_CAMERA_HEIGHT must not exceed STAGE_CAMERA_WIDTH (landscape cameras)');
  }
  if (problems.length > 0) throw new ConfigError(problems, 'camera process');
  return {
    stageUrl: stageUrl(value.STAGE_HOST, value.STAGE_PORT),
    dataDir: resolve(root, value.DATA_DIR),
    tokenSecret: value.STAGE_TOKEN_SECRET,
    stageIds: value.STAGE_SYNTHETIC_CAMERAS,
    camera: {
      width: value.STAGE_CAMERA_WIDTH,
      height: value.STAGE_CAMERA_HEIGHT,
      fps: value.STAGE_CAMERA_FPS,
      idleMs: value.STAGE_CAMERA_IDLE_MS,
      simulcast: value.STAGE_CAMERA_SIMULCAST,
    },
    logLevel: value.LOG_LEVEL,
    logFormat: value.LOG_FORMAT,
  };
}

/** Where the stage listens, as a URL; a stage on every address is reached on loopback. */
export function stageUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
