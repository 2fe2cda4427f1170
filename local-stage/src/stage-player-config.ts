/**
 * What every process that watches the stage like a player reads from the environment it shares
 * with the stage and the camera process (the recorder, the thumbnail process): where the stage
 * is, the data directory, the token secret and how to log.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import type { LogFormat, LogLevelName } from '@tailcam/protocol/log-line';
import { stageUrl } from './cameras/config';
import { integer, logFormatVariable, logLevelVariable, tokenSecretVariable } from './env-config';

/** The variables, to spread into a process's own schema. */
export const stagePlayerVariables = {
  STAGE_PORT: integer('STAGE_PORT', 8091, 1, 65535),
  STAGE_HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  STAGE_TOKEN_SECRET: tokenSecretVariable,
  LOG_LEVEL: logLevelVariable,
  LOG_FORMAT: logFormatVariable,
};

export interface StagePlayerConfig {
  stageUrl: string;
  dataDir: string;
  tokenSecret: string | undefined;
  logLevel: LogLevelName | undefined;
  logFormat: LogFormat | undefined;
}

type StagePlayerValues = z.infer<z.ZodObject<typeof stagePlayerVariables>>;

/** The parsed variables as configuration; relative paths resolve against `root`. */
export function stagePlayerConfig(value: StagePlayerValues, root: string): StagePlayerConfig {
  return {
    stageUrl: stageUrl(value.STAGE_HOST, value.STAGE_PORT),
    dataDir: resolve(root, value.DATA_DIR),
    tokenSecret: value.STAGE_TOKEN_SECRET,
    logLevel: value.LOG_LEVEL,
    logFormat: value.LOG_FORMAT,
  };
}
