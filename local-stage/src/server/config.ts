/** The stage process's configuration: environment variables, read once through a schema. */
import { resolve } from 'node:path';
import { z } from 'zod';
import type { LogFormat, LogLevelName } from '@tailcam/protocol/log-line';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '@tailcam/protocol/node-http-answers';
import {
  checkTurnVariables,
  turnSettings,
  turnVariables,
  type TurnSettings,
} from '@tailcam/protocol/turn';
import {
  ConfigError,
  integer,
  logFormatVariable,
  logLevelVariable,
  parseEnv,
  syntheticCamerasVariable,
  tokenSecretVariable,
} from '../env-config';
import {
  stageNetworkProblem,
  stageNetworkSettings,
  stageNetworkVariables,
  type Lookup,
  type StageNetworkSettings,
} from '@tailcam/protocol/stage-network';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { DEFAULT_LIMITS, type AdmissionLimits } from './sessions/admission';
import { parsePublishMaxKbps, type PublishMaxKbps } from './media/publisher/publish-max-bitrate';
import {
  PeerNetworkError,
  peerConnectionLimit,
  resolvePeerNetwork,
  type PeerNetwork,
} from './media/transport/peer-network';

export { ConfigError };

/** The synthetic cameras sleep after a minute with nobody watching (decision 0074). */
export const DEFAULT_CAMERA_SLEEP_AFTER_MS = 60_000;

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((value) => value === '1' || value === 'true');

const envSchema = z
  .object({
    STAGE_PORT: integer('STAGE_PORT', 8091, 0, 65535),
    STAGE_HOST: z.string().min(1).default('127.0.0.1'),
    DATA_DIR: z.string().min(1).default('./data'),
    STAGE_TOKEN_SECRET: tokenSecretVariable,
    STAGE_FAULTS: flag,
    STAGE_SYNTHETIC_CAMERAS: syntheticCamerasVariable,
    CAMERA_SLEEP_AFTER_MS: integer(
      'CAMERA_SLEEP_AFTER_MS',
      DEFAULT_CAMERA_SLEEP_AFTER_MS,
      0,
      86_400_000,
    ),
    STAGE_PUBLISH_MAX_KBPS: z
      .string()
      .optional()
      .transform((value, context) => {
        const caps = parsePublishMaxKbps(value);
        if (typeof caps !== 'string') return caps;
        context.addIssue({ code: 'custom', message: caps });
        return z.NEVER;
      }),
    STAGE_SESSIONS_PER_USER: integer(
      'STAGE_SESSIONS_PER_USER',
      DEFAULT_LIMITS.sessionsPerUser,
      1,
      1000,
    ),
    STAGE_MAX_SESSIONS: integer('STAGE_MAX_SESSIONS', DEFAULT_LIMITS.maxSessions, 1, 1000),
    STAGE_CONNECTING_PER_TOKEN: integer(
      'STAGE_CONNECTING_PER_TOKEN',
      DEFAULT_LIMITS.connectingPerToken,
      1,
      32,
    ),
    STAGE_CONNECTING_PER_AIRCRAFT: integer(
      'STAGE_CONNECTING_PER_AIRCRAFT',
      DEFAULT_LIMITS.connectingPerAircraft,
      1,
      32,
    ),
    STAGE_PATCHES_PER_SESSION: integer(
      'STAGE_PATCHES_PER_SESSION',
      DEFAULT_LIMITS.patchesPerSession,
      1,
      10_000,
    ),
    LOG_LEVEL: logLevelVariable,
    LOG_FORMAT: logFormatVariable,
    // The API's variable, and its range: one limit for both ports.
    REQUEST_TIMEOUT_MS: integer('REQUEST_TIMEOUT_MS', DEFAULT_REQUEST_TIMEOUT_MS, 100, 300_000),
    // The API's variables: the stage gives WHIP/WHEP clients the same TURN server (decision 0063).
    ...turnVariables,
    ...stageNetworkVariables,
  })
  .superRefine(
    (env, ctx) => {
      const failed = new Set(ctx.issues.map((issue) => issue.path?.[0]));
      checkTurnVariables(
        env,
        (name) => !failed.has(name),
        (name, message) => ctx.addIssue({ code: 'custom', path: [name], message }),
      );
      // Run even when a variable failed, so that one start names every problem.
    },
    { when: () => true },
  );

export interface StageConfig {
  port: number;
  host: string;
  dataDir: string;
  /** The shared participant-token secret when given directly; else read from `dataDir`. */
  tokenSecret: string | undefined;
  faultsEnabled: boolean;
  /** The aircraft the camera process publishes a synthetic camera for. */
  syntheticCameras: readonly string[];
  /** The synthetic cameras sleep after this long with nobody watching; 0: never. */
  cameraSleepAfterMs: number;
  /** Who may open a session (admission.ts): the limits the environment sets. */
  limits: Pick<
    AdmissionLimits,
    | 'sessionsPerUser'
    | 'maxSessions'
    | 'connectingPerToken'
    | 'connectingPerAircraft'
    | 'patchesPerSession'
  >;
  /** A request (headers and body) not wholly received within this is answered 408. */
  requestTimeoutMs: number;
  /** The least level a record is written at; unset: `info` (as the API's). */
  logLevel: LogLevelName | undefined;
  /** Unset: readable lines on a terminal, JSON lines otherwise (as the API's). */
  logFormat: LogFormat | undefined;
  /** What the peer connections announce, as configured (`resolveStageNetwork` resolves it). */
  network: StageNetworkSettings;
  /** TURN for WHIP/WHEP clients' `Link` headers; unset without TURN_URLS. */
  turn: TurnSettings | undefined;
  /** Each aircraft's publisher cap, sent as REMB; empty: none. */
  publishMaxKbps: PublishMaxKbps;
}

/**
 * Reads the configuration from `env`; relative paths resolve against `root` (the repository).
 * Throws a ConfigError naming every bad variable.
 */
export function loadStageConfig(env: NodeJS.ProcessEnv, root: string): StageConfig {
  const value = parseEnv(envSchema, env, 'local stage');
  const network = stageNetworkSettings(value);
  const problem = stageNetworkProblem(network);
  if (problem !== undefined) throw new ConfigError([problem], 'local stage');
  return {
    port: value.STAGE_PORT,
    host: value.STAGE_HOST,
    dataDir: resolve(root, value.DATA_DIR),
    tokenSecret: value.STAGE_TOKEN_SECRET,
    faultsEnabled: value.STAGE_FAULTS,
    syntheticCameras: value.STAGE_SYNTHETIC_CAMERAS,
    cameraSleepAfterMs: value.CAMERA_SLEEP_AFTER_MS,
    limits: {
      sessionsPerUser: value.STAGE_SESSIONS_PER_USER,
      maxSessions: value.STAGE_MAX_SESSIONS,
      connectingPerToken: value.STAGE_CONNECTING_PER_TOKEN,
      connectingPerAircraft: value.STAGE_CONNECTING_PER_AIRCRAFT,
      patchesPerSession: value.STAGE_PATCHES_PER_SESSION,
    },
    requestTimeoutMs: value.REQUEST_TIMEOUT_MS,
    logLevel: value.LOG_LEVEL,
    logFormat: value.LOG_FORMAT,
    network,
    turn: turnSettings(value),
    publishMaxKbps: value.STAGE_PUBLISH_MAX_KBPS,
  };
}

/**
 * What the stage's peer connections announce: the configured names resolved, the interfaces'
 * addresses read, the port range checked against the stage's limit. Throws a ConfigError naming
 * what is wrong.
 */
export async function resolveStageNetwork(
  config: Pick<StageConfig, 'network' | 'limits'>,
  options: { lookup?: Lookup } = {},
): Promise<PeerNetwork> {
  try {
    return await resolvePeerNetwork(config.network, {
      peerConnections: peerConnectionLimit({
        maxSessions: config.limits.maxSessions,
        maxConnectingPublishers: DEFAULT_LIMITS.maxConnectingPublishers,
        aircraft: STREAM_IDS.length,
      }),
      lookup: options.lookup,
    });
  } catch (error) {
    if (error instanceof PeerNetworkError) throw new ConfigError(error.problems, 'local stage');
    throw error;
  }
}
