/** The stage process's configuration: environment variables, read once through a schema. */
import { resolve } from 'node:path';
import { z } from 'zod';
import { LOG_FORMATS, type LogFormat } from '@tailcam/protocol/log-line';
import { isStreamId, STREAM_IDS } from '@tailcam/protocol/streams';

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
  STAGE_SYNTHETIC_CAMERAS: z
    .string()
    .optional()
    .transform((value, context) => {
      const cameras = syntheticCameras(value);
      if (typeof cameras === 'string') {
        context.addIssue({ code: 'custom', message: cameras });
        return z.NEVER;
      }
      return cameras;
    }),
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
  /** The aircraft the camera process publishes a synthetic camera for. */
  syntheticCameras: readonly string[];
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
  return {
    port: value.STAGE_PORT,
    host: value.STAGE_HOST,
    dataDir: resolve(root, value.DATA_DIR),
    tokenSecret: value.STAGE_TOKEN_SECRET,
    faultsEnabled: value.STAGE_FAULTS,
    syntheticCameras: value.STAGE_SYNTHETIC_CAMERAS,
    sessionsPerUser: value.STAGE_SESSIONS_PER_USER,
    logFormat: value.LOG_FORMAT,
  };
}

/**
 * `STAGE_SYNTHETIC_CAMERAS`, read by the stage and the camera process alike: `all` (the default),
 * `none`, or a comma list of tail numbers. The aircraft, or what is wrong with the value.
 */
export function syntheticCameras(value: string | undefined): readonly string[] | string {
  const text = (value ?? '').trim();
  if (text === '' || text.toLowerCase() === 'all') return STREAM_IDS;
  if (text.toLowerCase() === 'none') return [];
  const names = text.split(',').map((name) => name.trim().toUpperCase());
  const unknown = names.filter((name) => !isStreamId(name));
  if (unknown.length > 0) {
    return `STAGE_SYNTHETIC_CAMERAS must be all, none or tail numbers from ${STREAM_IDS.join(', ')} (unknown: ${unknown.join(', ')})`;
  }
  return [...new Set(names)];
}
