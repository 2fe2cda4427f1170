/**
 * Configuration: environment variables (env.ts adds `.env`), validated once at start by one
 * schema. Each variable is parsed into its typed value, the rules between variables are
 * refinements of the same schema, and every bad variable is reported by name in a single
 * readable error.
 * Every variable and every rule between them is in one schema, which the CLIs' smaller parsers
 * (cli/cli-config.ts) take their pieces from; how one variable's text is read is in
 * config-values.ts.
 */
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import {
  LOG_FORMATS,
  LOG_LEVEL_NAMES,
  type LogFormat,
  type LogLevelName,
} from '@tailcam/protocol/log-line';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import {
  checkTurnVariables,
  turnSettings,
  turnVariables,
  type TurnSettings,
} from '@tailcam/protocol/turn';
import {
  corsOrigins,
  emptyToUndefined,
  integer,
  optionalInteger,
  optionalText,
  secret,
  stageArns,
  trustProxy,
  urlText,
  type StageArns,
  type TrustProxy,
} from './config-values';
import type { Env } from './env';
import type { LoginLimitSettings } from './http/rate-limit';
import { ivsSdkFile, localStageSdkFile, webDistDir } from './paths';
import {
  checkMetricsVariables,
  metricsSettings,
  metricsVariables,
  type MetricsSettings,
} from './metrics/metrics-config';
import {
  checkEventsVariables,
  eventsSettings,
  eventsVariables,
  type EventsSettings,
} from './operations/events-config';

/**
 * Signalling sockets one address holds by default: an office of 50 viewers behind one NAT
 * address, each watching the three streams, with room for sockets still closing while their
 * players reconnect (decision 0065).
 */
export const SOCKETS_PER_ADDRESS = 160;

export interface StageProxyLimits {
  /** Signalling sockets one address may hold at once. */
  socketsPerAddress: number;
  /** Signalling sockets in all; a new one then takes the seat of a socket that has not joined. */
  socketsTotal: number;
  /** A socket that has not joined by then is closed. */
  joinSeconds: number;
  /** How often the browser is pinged; one that misses a pong is cut. */
  pingSeconds: number;
}

/**
 * One entry per variable, in the order their problems are listed: the list-valued ones last.
 */
export const variables = {
  PORT: integer(8080, 0, 65535),
  HOST: z.preprocess(emptyToUndefined, z.string().trim().default('127.0.0.1')),
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./data')),
  RECORDINGS_DIR: z.preprocess(emptyToUndefined, z.string().optional()),
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  AUTH_SECRET: secret,
  STAGE_PROVIDER: z.preprocess(
    emptyToUndefined,
    z.enum(['local', 'ivs'], { error: 'must be "local" or "ivs"' }).default('local'),
  ),
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
  /** The bucket of IVS's recordings (and thumbnails), as `npm run ivs -- provision` prints it. */
  IVS_RECORDINGS_BUCKET: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/, {
        error: 'must be an S3 bucket name: 3 to 63 a-z, 0-9 and - (no dots)',
      })
      .optional(),
  ),
  PARTICIPANT_TOKEN_MINUTES: integer(60, 1, 20160),
  LOGIN_TOKEN_HOURS: integer(12, 1, 24 * 30),
  LOCAL_STAGE_URL: z.preprocess(
    emptyToUndefined,
    urlText('where the local stage process listens').default('http://127.0.0.1:8091'),
  ),
  LOCAL_STAGE_SDK_FILE: optionalText,
  STAGE_TOKEN_SECRET: secret,
  // Unset: SOCKETS_PER_ADDRESS, or STAGE_SOCKETS_TOTAL where that is lower.
  STAGE_SOCKETS_PER_ADDRESS: optionalInteger(1, 100_000),
  // The stage itself takes at most 256 sockets: the edge's seats must all reach it.
  STAGE_SOCKETS_TOTAL: integer(200, 1, 256),
  STAGE_JOIN_SECONDS: integer(5, 1, 60),
  STAGE_PING_SECONDS: integer(10, 1, 600),
  WEB_DIST_DIR: optionalText,
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z
      .enum(LOG_LEVEL_NAMES, { error: `must be one of ${LOG_LEVEL_NAMES.join(', ')}` })
      .default('info'),
  ),
  LOG_FORMAT: z.preprocess(
    emptyToUndefined,
    z.enum(LOG_FORMATS, { error: `must be ${LOG_FORMATS.join(' or ')}` }).optional(),
  ),
  PUBLIC_URL: urlText('the address browsers use to reach this server'),
  REQUEST_TIMEOUT_MS: integer(10_000, 100, 300_000),
  RATE_LIMIT_STORE: z.preprocess(
    emptyToUndefined,
    z.enum(['memory', 'postgres'], { error: 'must be "memory" or "postgres"' }).default('memory'),
  ),
  LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: integer(120, 1, 1_000_000),
  LOGIN_ATTEMPTS_PER_NAME_IP: integer(10, 1, 1_000),
  LOGIN_ATTEMPTS_PER_NAME: integer(100, 1, 1_000_000),
  // At most 10 minutes: shorter than the 15-minute window whose count the delays follow.
  LOGIN_MAX_DELAY_SECONDS: integer(60, 1, 600),
  TOKEN_RATE_LIMIT_PER_MINUTE: integer(30, 1, 1_000_000),
  THUMBNAIL_RATE_LIMIT_PER_MINUTE: integer(120, 1, 1_000_000),
  WHIP_RATE_LIMIT_PER_MINUTE: integer(30, 1, 1_000_000),
  WHEP_RATE_LIMIT_PER_MINUTE: integer(300, 1, 1_000_000),
  TRICKLE_RATE_LIMIT_PER_MINUTE: integer(1_500, 1, 1_000_000),
  RECORDING_DOWNLOADS_PER_ACCOUNT: integer(1, 1, 1_000),
  RECORDING_DOWNLOADS_MAX: integer(2, 1, 1_000),
  RECORDINGS_LIST_PER_MINUTE: integer(60, 1, 1_000_000),
  ...metricsVariables,
  ...eventsVariables,
  TURN_SECRET: turnVariables.TURN_SECRET,
  TURN_CREDENTIAL_MINUTES: turnVariables.TURN_CREDENTIAL_MINUTES,
  TRUST_PROXY: trustProxy,
  CORS_ORIGINS: corsOrigins,
  TURN_URLS: turnVariables.TURN_URLS,
  IVS_STAGE_ARNS: stageArns,
};

type Variables = z.output<z.ZodObject<typeof variables>>;

/** The rules between variables. */
function crossCheck(env: Variables, ctx: z.RefinementCtx<Variables>): void {
  // Runs even when a variable failed, so that one run names every problem. A rule reads only
  // variables that parsed (a failed one holds no value of its type), so nothing is reported twice.
  const failed = new Set(ctx.issues.map((issue) => issue.path?.[0]));
  const parsed = (name: keyof Variables) => !failed.has(name);
  const problem = (name: keyof Variables, message: string) =>
    ctx.addIssue({ code: 'custom', path: [name], message });

  if (parsed('STAGE_PROVIDER') && env.STAGE_PROVIDER === 'ivs') {
    if (parsed('AUTH_SECRET') && env.AUTH_SECRET === undefined) {
      problem(
        'AUTH_SECRET',
        'required with STAGE_PROVIDER=ivs (at least 32 random characters, e.g. `openssl rand -base64 48`)',
      );
    }
    if (parsed('AWS_REGION') && env.AWS_REGION === undefined) {
      problem('AWS_REGION', 'required with STAGE_PROVIDER=ivs (e.g. us-east-1)');
    }
    if (parsed('IVS_STAGE_ARNS')) {
      const arns = env.IVS_STAGE_ARNS;
      const missing = STREAM_IDS.filter((id) => arns?.[id] === undefined);
      if (arns === undefined) {
        problem(
          'IVS_STAGE_ARNS',
          `required with STAGE_PROVIDER=ivs (${STREAM_IDS.map((id) => `${id}=arn:aws:ivs:...`).join(',')})`,
        );
      } else if (missing.length > 0) {
        problem('IVS_STAGE_ARNS', `no stage ARN for ${missing.join(', ')}`);
      }
    }
  }
  if (
    parsed('STAGE_SOCKETS_PER_ADDRESS') &&
    parsed('STAGE_SOCKETS_TOTAL') &&
    env.STAGE_SOCKETS_PER_ADDRESS !== undefined &&
    env.STAGE_SOCKETS_PER_ADDRESS > env.STAGE_SOCKETS_TOTAL
  ) {
    problem(
      'STAGE_SOCKETS_PER_ADDRESS',
      `must not exceed STAGE_SOCKETS_TOTAL (${env.STAGE_SOCKETS_TOTAL})`,
    );
  }
  checkTurnVariables(env, parsed, problem);
  checkMetricsVariables(env, parsed, problem);
  checkEventsVariables(env, parsed, problem);
  if (
    parsed('TURN_URLS') &&
    parsed('TURN_SECRET') &&
    parsed('TURN_CREDENTIAL_MINUTES') &&
    turnSettings(env) !== undefined &&
    parsed('PARTICIPANT_TOKEN_MINUTES') &&
    env.TURN_CREDENTIAL_MINUTES < env.PARTICIPANT_TOKEN_MINUTES
  ) {
    // A token joins until it expires; its TURN credential must still open an allocation then.
    problem(
      'TURN_CREDENTIAL_MINUTES',
      `must be at least PARTICIPANT_TOKEN_MINUTES (${env.PARTICIPANT_TOKEN_MINUTES})`,
    );
  }
  if (
    parsed('RATE_LIMIT_STORE') &&
    env.RATE_LIMIT_STORE === 'postgres' &&
    parsed('DATABASE_URL') &&
    env.DATABASE_URL === undefined
  ) {
    problem(
      'RATE_LIMIT_STORE',
      '"postgres" needs DATABASE_URL (the windows live in that database)',
    );
  }
}

export interface Config {
  repoRoot: string;
  port: number;
  host: string;
  dataDir: string;
  /** Where the local stage's recorder writes (docs/decisions/0072-recorder.md); the API serves it. */
  recordingsDir: string;
  databaseUrl: string | undefined;
  /** Signs login tokens. Unset only with the local provider; the server then generates one. */
  authSecret: string | undefined;
  stageProvider: 'local' | 'ivs';
  ivs: {
    region: string | undefined;
    stageArns: StageArns;
    sdkUrl: string | undefined;
    sdkFile: string;
    /** IVS_RECORDINGS_BUCKET: where the Recordings page finds IVS's recordings. */
    recordingsBucket?: string | undefined;
  };
  participantTokenMinutes: number;
  loginTokenHours: number;
  localStage: { url: string; sdkFile: string; tokenSecret: string | undefined };
  /** The limits of the API's `/stage/events` edge (local stage): see stage-edge/stage-edge.ts. */
  stageProxy: StageProxyLimits;
  webDistDir: string;
  corsOrigins: string[];
  trustProxy: TrustProxy;
  logLevel: LogLevelName;
  /** Unset: readable lines on a terminal, JSON lines otherwise (logger.ts decides). */
  logFormat: LogFormat | undefined;
  publicUrl: string | undefined;
  /** A request (headers and body) not wholly received by then: 408, and the socket closed. */
  requestTimeoutMs: number;
  /** Where login rate-limit windows live: this process, or PostgreSQL shared by every instance. */
  rateLimitStore: 'memory' | 'postgres';
  /**
   * Sign-in attempts a minute per address, and before delays per name at one address and per
   * name (decisions 0059, 0065).
   */
  loginLimits: LoginLimitSettings;
  /** Participant tokens one user may get a minute (`POST /api/token`). */
  tokenRateLimitPerMinute: number;
  /** Thumbnails one user may ask for a minute (`GET /api/thumbnails/{id}`). */
  thumbnailRateLimitPerMinute: number;
  /** Recording downloads at once per account and in all, and list calls (decision 0081). */
  recordingLimits: {
    downloadsPerAccount: number;
    downloadsMax: number;
    listPerMinute: number;
  };
  /** WHIP offers one address may make a minute (`POST /stage/whip/...`, local stage). */
  whipRateLimitPerMinute: number;
  /** WHEP offers one address may make a minute (`POST /stage/whep/...`, local stage). */
  whepRateLimitPerMinute: number;
  /** Trickle PATCHes one address may send a minute, WHIP and WHEP together (local stage). */
  trickleRateLimitPerMinute: number;
  /**
   * The TURN server whose credentials go into local participant tokens (decision 0063); unset
   * without TURN_URLS, and unused with IVS, which gives its own.
   */
  turn: TurnSettings | undefined;
  /** The Prometheus endpoint (decision 0097): METRICS_HOST, METRICS_PORT, METRICS_TOKEN. */
  metrics: MetricsSettings;
  /** Webhooks and the off-air grace (decision 0098): EVENT_WEBHOOK_*, OFF_AIR_GRACE_SECONDS. */
  events: EventsSettings;
}

export const fromRoot = (repoRoot: string, path: string) =>
  isAbsolute(path) ? path : resolve(repoRoot, path);

/** The whole configuration; relative paths resolve from `repoRoot`. */
function configSchema(repoRoot: string) {
  return z
    .object(variables)
    .superRefine(crossCheck, { when: () => true })
    .transform((env): Config => ({
      repoRoot,
      port: env.PORT,
      host: env.HOST,
      dataDir: fromRoot(repoRoot, env.DATA_DIR),
      recordingsDir: env.RECORDINGS_DIR
        ? fromRoot(repoRoot, env.RECORDINGS_DIR)
        : resolve(fromRoot(repoRoot, env.DATA_DIR), 'recordings'),
      databaseUrl: env.DATABASE_URL,
      authSecret: env.AUTH_SECRET,
      stageProvider: env.STAGE_PROVIDER,
      ivs: {
        region: env.AWS_REGION,
        stageArns: env.IVS_STAGE_ARNS ?? {},
        sdkUrl: env.IVS_SDK_URL,
        sdkFile: ivsSdkFile(repoRoot),
        recordingsBucket: env.IVS_RECORDINGS_BUCKET,
      },
      participantTokenMinutes: env.PARTICIPANT_TOKEN_MINUTES,
      loginTokenHours: env.LOGIN_TOKEN_HOURS,
      localStage: {
        url: env.LOCAL_STAGE_URL.replace(/\/$/, ''),
        sdkFile:
          env.LOCAL_STAGE_SDK_FILE === undefined
            ? localStageSdkFile(repoRoot)
            : fromRoot(repoRoot, env.LOCAL_STAGE_SDK_FILE),
        tokenSecret: env.STAGE_TOKEN_SECRET,
      },
      stageProxy: {
        socketsPerAddress:
          env.STAGE_SOCKETS_PER_ADDRESS ?? Math.min(SOCKETS_PER_ADDRESS, env.STAGE_SOCKETS_TOTAL),
        socketsTotal: env.STAGE_SOCKETS_TOTAL,
        joinSeconds: env.STAGE_JOIN_SECONDS,
        pingSeconds: env.STAGE_PING_SECONDS,
      },
      webDistDir:
        env.WEB_DIST_DIR === undefined
          ? webDistDir(repoRoot)
          : fromRoot(repoRoot, env.WEB_DIST_DIR),
      corsOrigins: env.CORS_ORIGINS,
      trustProxy: env.TRUST_PROXY,
      logLevel: env.LOG_LEVEL,
      logFormat: env.LOG_FORMAT,
      publicUrl: env.PUBLIC_URL?.replace(/\/$/, ''),
      requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
      rateLimitStore: env.RATE_LIMIT_STORE,
      loginLimits: {
        attemptsPerAddressPerMinute: env.LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE,
        attemptsPerNameIp: env.LOGIN_ATTEMPTS_PER_NAME_IP,
        attemptsPerName: env.LOGIN_ATTEMPTS_PER_NAME,
        maxDelaySeconds: env.LOGIN_MAX_DELAY_SECONDS,
      },
      tokenRateLimitPerMinute: env.TOKEN_RATE_LIMIT_PER_MINUTE,
      thumbnailRateLimitPerMinute: env.THUMBNAIL_RATE_LIMIT_PER_MINUTE,
      recordingLimits: {
        downloadsPerAccount: env.RECORDING_DOWNLOADS_PER_ACCOUNT,
        downloadsMax: env.RECORDING_DOWNLOADS_MAX,
        listPerMinute: env.RECORDINGS_LIST_PER_MINUTE,
      },
      whipRateLimitPerMinute: env.WHIP_RATE_LIMIT_PER_MINUTE,
      whepRateLimitPerMinute: env.WHEP_RATE_LIMIT_PER_MINUTE,
      trickleRateLimitPerMinute: env.TRICKLE_RATE_LIMIT_PER_MINUTE,
      turn: turnSettings(env),
      metrics: metricsSettings(env),
      events: eventsSettings(env),
    }));
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function parseOrThrow<T>(schema: z.ZodType<T>, env: Env): T {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
  );
}

/** Validates the environment; throws ConfigError listing every bad variable. */
export function parseConfig(env: Env, repoRoot: string): Config {
  return parseOrThrow(configSchema(repoRoot), env);
}
