/**
 * Configuration: environment variables (plus an optional `.env` in the repository root, which the
 * environment overrides), validated once at start by one schema. Every bad variable is reported
 * by name in a single readable error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { STREAM_IDS, isStreamId, type StreamId } from '@tailcam/protocol/streams';

export type Env = Record<string, string | undefined>;

const emptyToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const optionalText = z.preprocess(emptyToUndefined, z.string().trim().optional());

function integer(defaultValue: number, min: number, max: number) {
  return z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^\d+$/, `must be a whole number between ${min} and ${max}`)
      .transform(Number)
      .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
      .default(defaultValue),
  );
}

const urlText = (what: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .refine((value) => {
        try {
          const url = new URL(value);
          return url.protocol === 'http:' || url.protocol === 'https:';
        } catch {
          return false;
        }
      }, `must be an http(s) URL (${what})`)
      .optional(),
  );

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const envSchema = z.object({
  PORT: integer(8080, 0, 65535),
  HOST: z.preprocess(emptyToUndefined, z.string().trim().default('127.0.0.1')),
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./data')),
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  AUTH_SECRET: z.preprocess(
    emptyToUndefined,
    z.string().min(32, 'must be at least 32 characters long').optional(),
  ),
  STAGE_PROVIDER: z.preprocess(
    emptyToUndefined,
    z.enum(['local', 'ivs'], { error: 'must be "local" or "ivs"' }).default('local'),
  ),
  IVS_STAGE_ARNS: optionalText,
  IVS_SDK_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .refine((value) => URL.canParse(value) && value.startsWith('https://'), {
        error: 'must be an https:// URL',
      })
      .optional(),
  ),
  AWS_REGION: optionalText,
  PARTICIPANT_TOKEN_MINUTES: integer(60, 1, 20160),
  LOGIN_TOKEN_HOURS: integer(12, 1, 24 * 30),
  LOCAL_STAGE_URL: z.preprocess(
    emptyToUndefined,
    urlText('where the local stage process listens').default('http://127.0.0.1:8091'),
  ),
  LOCAL_STAGE_SDK_FILE: optionalText,
  STAGE_TOKEN_SECRET: z.preprocess(
    emptyToUndefined,
    z.string().min(32, 'must be at least 32 characters long').optional(),
  ),
  WEB_DIST_DIR: optionalText,
  CORS_ORIGINS: optionalText,
  TRUST_PROXY: optionalText,
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(logLevels, { error: `must be one of ${logLevels.join(', ')}` }).default('info'),
  ),
  PUBLIC_URL: urlText('the address browsers use to reach this server'),
  RATE_LIMIT_STORE: z.preprocess(
    emptyToUndefined,
    z.enum(['memory', 'postgres'], { error: 'must be "memory" or "postgres"' }).default('memory'),
  ),
});

export type TrustProxy = boolean | number | string[];

export interface Config {
  repoRoot: string;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Signs login tokens. Unset only with the local provider; the server then generates one. */
  authSecret: string | undefined;
  stageProvider: 'local' | 'ivs';
  ivs: {
    region: string | undefined;
    stageArns: Partial<Record<StreamId, string>>;
    sdkUrl: string | undefined;
    sdkFile: string;
  };
  participantTokenMinutes: number;
  loginTokenHours: number;
  localStage: { url: string; sdkFile: string; tokenSecret: string | undefined };
  webDistDir: string;
  corsOrigins: string[];
  trustProxy: TrustProxy;
  logLevel: (typeof logLevels)[number];
  publicUrl: string | undefined;
  /** Where login rate-limit windows live: this process, or PostgreSQL shared by every instance. */
  rateLimitStore: 'memory' | 'postgres';
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The AWS SDK reads its credentials and profile from the process environment only. `AWS_*`
 * variables that come from `.env` are copied there (the environment still wins), so that a
 * `.env` works for AWS as it does for everything else.
 */
export function exportAwsVariables(env: Env, target: Env = process.env): void {
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('AWS_') && value !== undefined && target[name] === undefined) {
      target[name] = value;
    }
  }
}

/** Reads `<repoRoot>/.env` if present; the process environment wins over it. */
export function readEnv(repoRoot: string, env: Env = process.env): Env {
  const file = join(repoRoot, '.env');
  const fromFile = existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {};
  return { ...fromFile, ...env };
}

export function parseStageArns(
  text: string,
  problems: string[],
): Partial<Record<StreamId, string>> {
  const arns: Partial<Record<StreamId, string>> = {};
  for (const entry of text.split(',')) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const separator = trimmed.indexOf('=');
    const streamId = separator > 0 ? trimmed.slice(0, separator).trim() : '';
    const arn = separator > 0 ? trimmed.slice(separator + 1).trim() : '';
    if (!isStreamId(streamId)) {
      problems.push(
        `IVS_STAGE_ARNS: "${trimmed}" must be STREAM=ARN with STREAM one of ${STREAM_IDS.join(', ')}`,
      );
    } else if (!/^arn:aws[a-z-]*:ivs:[a-z0-9-]+:\d{12}:stage\/[A-Za-z0-9]+$/.test(arn)) {
      problems.push(`IVS_STAGE_ARNS: the ARN for ${streamId} is not an IVS stage ARN`);
    } else {
      arns[streamId] = arn;
    }
  }
  return arns;
}

function parseTrustProxy(text: string | undefined, problems: string[]): TrustProxy {
  if (text === undefined || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const addresses = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (addresses.every((address) => /^[0-9a-fA-F.:/]+$/.test(address))) return addresses;
  problems.push(
    'TRUST_PROXY: must be true, false, a number of hops, or a comma-separated list of addresses',
  );
  return false;
}

function parseOrigins(text: string | undefined, problems: string[]): string[] {
  if (text === undefined) return [];
  const origins: string[] = [];
  for (const part of text.split(',')) {
    const candidate = part.trim();
    if (candidate === '') continue;
    let origin: string | undefined;
    try {
      const url = new URL(candidate);
      if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
    } catch {
      origin = undefined;
    }
    if (origin === undefined || origin !== candidate.replace(/\/$/, '')) {
      problems.push(`CORS_ORIGINS: "${candidate}" is not an origin such as https://app.example`);
    } else {
      origins.push(origin);
    }
  }
  return origins;
}

/** The real Amazon IVS Web Broadcast SDK file shipped in the npm package. */
function resolveIvsSdkFile(repoRoot: string): string {
  try {
    return createRequire(import.meta.url).resolve('amazon-ivs-web-broadcast');
  } catch {
    return join(
      repoRoot,
      'node_modules',
      'amazon-ivs-web-broadcast',
      'dist',
      'amazon-ivs-web-broadcast.js',
    );
  }
}

const fromRoot = (repoRoot: string, path: string) =>
  isAbsolute(path) ? path : resolve(repoRoot, path);

/** Validates the environment; throws ConfigError listing every bad variable. */
export function parseConfig(env: Env, repoRoot: string): Config {
  const problems: string[] = [];
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    problems.push(
      ...parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  const optional = (name: string) => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const trustProxy = parseTrustProxy(optional('TRUST_PROXY'), problems);
  const corsOrigins = parseOrigins(optional('CORS_ORIGINS'), problems);
  const arnsText = optional('IVS_STAGE_ARNS');
  const stageArns = arnsText === undefined ? {} : parseStageArns(arnsText, problems);

  if (optional('STAGE_PROVIDER') === 'ivs') {
    if (optional('AUTH_SECRET') === undefined) {
      problems.push(
        'AUTH_SECRET: required with STAGE_PROVIDER=ivs (at least 32 random characters, e.g. `openssl rand -base64 48`)',
      );
    }
    if (optional('AWS_REGION') === undefined) {
      problems.push('AWS_REGION: required with STAGE_PROVIDER=ivs (e.g. us-east-1)');
    }
    if (arnsText === undefined) {
      problems.push(
        `IVS_STAGE_ARNS: required with STAGE_PROVIDER=ivs (${STREAM_IDS.map((id) => `${id}=arn:aws:ivs:...`).join(',')})`,
      );
    } else {
      const missing = STREAM_IDS.filter((id) => stageArns[id] === undefined);
      if (missing.length > 0 && problems.every((p) => !p.startsWith('IVS_STAGE_ARNS'))) {
        problems.push(`IVS_STAGE_ARNS: no stage ARN for ${missing.join(', ')}`);
      }
    }
  }
  if (optional('RATE_LIMIT_STORE') === 'postgres' && optional('DATABASE_URL') === undefined) {
    problems.push(
      'RATE_LIMIT_STORE: "postgres" needs DATABASE_URL (the windows live in that database)',
    );
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const values = parsed.data;

  return {
    repoRoot,
    port: values.PORT,
    host: values.HOST,
    dataDir: fromRoot(repoRoot, values.DATA_DIR),
    databaseUrl: values.DATABASE_URL,
    authSecret: values.AUTH_SECRET,
    stageProvider: values.STAGE_PROVIDER,
    ivs: {
      region: values.AWS_REGION,
      stageArns,
      sdkUrl: values.IVS_SDK_URL,
      sdkFile: resolveIvsSdkFile(repoRoot),
    },
    participantTokenMinutes: values.PARTICIPANT_TOKEN_MINUTES,
    loginTokenHours: values.LOGIN_TOKEN_HOURS,
    localStage: {
      url: values.LOCAL_STAGE_URL.replace(/\/$/, ''),
      sdkFile: fromRoot(
        repoRoot,
        values.LOCAL_STAGE_SDK_FILE ?? join('local-stage', 'dist', 'stage-sdk.js'),
      ),
      tokenSecret: values.STAGE_TOKEN_SECRET,
    },
    webDistDir: fromRoot(repoRoot, values.WEB_DIST_DIR ?? join('web', 'dist')),
    corsOrigins,
    trustProxy,
    logLevel: values.LOG_LEVEL,
    publicUrl: values.PUBLIC_URL?.replace(/\/$/, ''),
    rateLimitStore: values.RATE_LIMIT_STORE,
  };
}

const storeEnvSchema = envSchema.pick({ DATA_DIR: true, DATABASE_URL: true });

export type StoreConfig = Pick<Config, 'repoRoot' | 'dataDir' | 'databaseUrl'>;

/** The part of the configuration the users CLI needs: where the accounts live. */
export function parseStoreConfig(env: Env, repoRoot: string): StoreConfig {
  const parsed = storeEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  return {
    repoRoot,
    dataDir: fromRoot(repoRoot, parsed.data.DATA_DIR),
    databaseUrl: parsed.data.DATABASE_URL,
  };
}
