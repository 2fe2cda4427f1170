/**
 * What the stage process and the camera process read alike from the environment (they are
 * started with the same one): the zod pieces for their variables, how a refusal reads, and the
 * secret they share with the API.
 */
import { z } from 'zod';
import { LOG_FORMATS, LOG_LEVEL_NAMES } from '@tailcam/protocol/log-line';
import { loadOrCreateSecret } from '@tailcam/protocol/secret-file';
import { isStreamId, STREAM_IDS } from '@tailcam/protocol/streams';

/** A whole number from `min` to `max`; `fallback` when unset or empty. */
export const integer = (name: string, fallback: number, min: number, max: number) =>
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

export const tokenSecretVariable = z
  .string()
  .min(32, 'STAGE_TOKEN_SECRET must be at least 32 characters')
  .optional()
  .or(z.literal('').transform(() => undefined));

export const logFormatVariable = z
  .enum([...LOG_FORMATS, ''], { error: `LOG_FORMAT must be ${LOG_FORMATS.join(' or ')}` })
  .optional()
  .transform((value) => (value === '' ? undefined : value));

export const logLevelVariable = z
  .enum([...LOG_LEVEL_NAMES, ''], {
    error: `LOG_LEVEL must be one of ${LOG_LEVEL_NAMES.join(', ')}`,
  })
  .optional()
  .transform((value) => (value === '' ? undefined : value));

export const syntheticCamerasVariable = z
  .string()
  .optional()
  .transform((value, context) => {
    const cameras = syntheticCameras(value);
    if (typeof cameras === 'string') {
      context.addIssue({ code: 'custom', message: cameras });
      return z.NEVER;
    }
    return cameras;
  });

/**
 * `STAGE_SYNTHETIC_CAMERAS`: `all` (the default), `none`, or a comma list of tail numbers. The
 * aircraft, or what is wrong with the value.
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

export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    what: string,
  ) {
    super(`Invalid ${what} configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * What `read` returns, or, for a ConfigError, its message on standard error and exit code 2 (a
 * process's configuration is read before its logger: the configuration says how to log).
 */
export function orExitOnConfigError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

/** Parses `env` with `schema`, or throws a ConfigError naming every bad variable. */
export function parseEnv<T>(schema: z.ZodType<T>, env: NodeJS.ProcessEnv, what: string): T {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((issue) => {
      const name = issue.path.join('.');
      return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
    }),
    what,
  );
}

/** The shared secret file; the API may be creating it this very moment: a short read is retried. */
export async function loadSharedSecret(path: string): Promise<Uint8Array> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await loadOrCreateSecret(path);
    } catch (error) {
      if (attempt >= 5 || !(error instanceof Error) || !/too short/.test(error.message)) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}
