/** The stage process's configuration: environment variables, read once through a schema. */
import { resolve } from 'node:path';
import { z } from 'zod';
import { LOG_FORMATS, type LogFormat } from '@tailcam/protocol/log-line';

const MAX_WIDTH = 1280;
const MAX_HEIGHT = 720;
/** Enough for one person watching every stream, with room for the reconnects of a few. */
export const DEFAULT_SESSIONS_PER_USER = 8;

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((value) => value === '1' || value === 'true');

const integer = (name: string, fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined || value === '') return fallback;
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
        context.addIssue({
          code: 'custom',
          message: `${name} must be a whole number from ${min} to ${max} (got "${value}")`,
        });
        return z.NEVER;
      }
      return parsed;
    });

const envSchema = z.object({
  STAGE_PORT: integer('STAGE_PORT', 8091, 0, 65535),
  STAGE_HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  STAGE_TOKEN_SECRET: z
    .string()
    .min(32, 'STAGE_TOKEN_SECRET must be at least 32 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  STAGE_FAULTS: flag,
  STAGE_CAMERA_WIDTH: integer('STAGE_CAMERA_WIDTH', 640, 160, MAX_WIDTH),
  STAGE_CAMERA_HEIGHT: integer('STAGE_CAMERA_HEIGHT', 360, 90, MAX_HEIGHT),
  STAGE_CAMERA_FPS: integer('STAGE_CAMERA_FPS', 30, 1, 30),
  STAGE_CAMERA_IDLE_MS: integer('STAGE_CAMERA_IDLE_MS', 5000, 0, 600_000),
  STAGE_SESSIONS_PER_USER: integer('STAGE_SESSIONS_PER_USER', DEFAULT_SESSIONS_PER_USER, 1, 1000),
  LOG_FORMAT: z
    .enum([...LOG_FORMATS, ''], { error: `LOG_FORMAT must be ${LOG_FORMATS.join(' or ')}` })
    .optional()
    .transform((value) => (value === '' ? undefined : value)),
});

export interface StageConfig {
  port: number;
  host: string;
  dataDir: string;
  /** The shared participant-token secret when given directly; else read from `dataDir`. */
  tokenSecret: string | undefined;
  faultsEnabled: boolean;
  camera: { width: number; height: number; fps: number; idleMs: number };
  /** Most stage sessions one user (a participant token's `user_id`) holds at once. */
  sessionsPerUser: number;
  /** Unset: readable lines on a terminal, JSON lines otherwise (as the API's). */
  logFormat: LogFormat | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid local stage configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the configuration from `env`; relative paths resolve against `root` (the repository).
 * Throws a ConfigError naming every bad variable.
 */
export function loadStageConfig(env: NodeJS.ProcessEnv, root: string): StageConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = issue.path.join('.');
        return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
      }),
    );
  }
  const value = parsed.data;
  const problems: string[] = [];
  if (value.STAGE_CAMERA_WIDTH % 2 !== 0 || value.STAGE_CAMERA_HEIGHT % 2 !== 0) {
    problems.push('STAGE_CAMERA_WIDTH and STAGE_CAMERA_HEIGHT must be even (I420 video)');
  }
  if (value.STAGE_CAMERA_HEIGHT > value.STAGE_CAMERA_WIDTH) {
    problems.push('STAGE_CAMERA_HEIGHT must not exceed STAGE_CAMERA_WIDTH (landscape cameras)');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: value.STAGE_PORT,
    host: value.STAGE_HOST,
    dataDir: resolve(root, value.DATA_DIR),
    tokenSecret: value.STAGE_TOKEN_SECRET,
    faultsEnabled: value.STAGE_FAULTS,
    camera: {
      width: value.STAGE_CAMERA_WIDTH,
      height: value.STAGE_CAMERA_HEIGHT,
      fps: value.STAGE_CAMERA_FPS,
      idleMs: value.STAGE_CAMERA_IDLE_MS,
    },
    sessionsPerUser: value.STAGE_SESSIONS_PER_USER,
    logFormat: value.LOG_FORMAT,
  };
}
