/**
 * What the CLIs need of the configuration, each only its own variables (so that a bad variable
 * the CLI never reads does not stop it), taken from config.ts's schema.
 */
import { z } from 'zod';
import type { StageArns } from '../config-values';
import { fromRoot, parseOrThrow, variables, type Config } from '../config';
import type { Env } from '../env';

export type StoreConfig = Pick<Config, 'repoRoot' | 'dataDir' | 'databaseUrl'>;

/**
 * What the users CLI needs to end a user's stage sessions itself, when it changes accounts in
 * PostgreSQL directly (with the embedded database a running server does it).
 */
export interface StageControlConfig {
  stageProvider: 'local' | 'ivs';
  localStageUrl: string;
  /** STAGE_TOKEN_SECRET (else DATA_DIR's file): the stage's control routes need a token signed with it. */
  localStage: { tokenSecret: string | undefined };
  ivs: { region: string | undefined; stageArns: StageArns };
}

export function parseStageControlConfig(env: Env): StageControlConfig {
  const schema = z
    .object({
      STAGE_PROVIDER: variables.STAGE_PROVIDER,
      LOCAL_STAGE_URL: variables.LOCAL_STAGE_URL,
      STAGE_TOKEN_SECRET: variables.STAGE_TOKEN_SECRET,
      AWS_REGION: variables.AWS_REGION,
      IVS_STAGE_ARNS: variables.IVS_STAGE_ARNS,
    })
    .transform((stage): StageControlConfig => ({
      stageProvider: stage.STAGE_PROVIDER,
      localStageUrl: stage.LOCAL_STAGE_URL.replace(/\/$/, ''),
      localStage: { tokenSecret: stage.STAGE_TOKEN_SECRET },
      ivs: { region: stage.AWS_REGION, stageArns: stage.IVS_STAGE_ARNS ?? {} },
    }));
  return parseOrThrow(schema, env);
}

/** What `npm run publish-token` needs: the provider, and with the local one how to sign. */
export interface PublishTokenConfig {
  stageProvider: 'local' | 'ivs';
  dataDir: string;
  localStage: { tokenSecret: string | undefined };
  /** Where encoders reach this server: PUBLIC_URL, else `http://localhost:PORT`. */
  publicOrigin: string;
  /** Whether PUBLIC_URL was set (the fallback names this machine only). */
  publicUrlSet: boolean;
  /** HOST, the address the server listens on. */
  host: string;
}

export function parsePublishTokenConfig(env: Env, repoRoot: string): PublishTokenConfig {
  const schema = z
    .object({
      STAGE_PROVIDER: variables.STAGE_PROVIDER,
      DATA_DIR: variables.DATA_DIR,
      STAGE_TOKEN_SECRET: variables.STAGE_TOKEN_SECRET,
      PUBLIC_URL: variables.PUBLIC_URL,
      PORT: variables.PORT,
      HOST: variables.HOST,
    })
    .transform((vars): PublishTokenConfig => ({
      stageProvider: vars.STAGE_PROVIDER,
      dataDir: fromRoot(repoRoot, vars.DATA_DIR),
      localStage: { tokenSecret: vars.STAGE_TOKEN_SECRET },
      publicOrigin: vars.PUBLIC_URL?.replace(/\/$/, '') ?? `http://localhost:${vars.PORT}`,
      publicUrlSet: vars.PUBLIC_URL !== undefined,
      host: vars.HOST,
    }));
  return parseOrThrow(schema, env);
}

/** The part of the configuration the users CLI needs: where the accounts live. */
export function parseStoreConfig(env: Env, repoRoot: string): StoreConfig {
  const schema = z
    .object({ DATA_DIR: variables.DATA_DIR, DATABASE_URL: variables.DATABASE_URL })
    .transform((store): StoreConfig => ({
      repoRoot,
      dataDir: fromRoot(repoRoot, store.DATA_DIR),
      databaseUrl: store.DATABASE_URL,
    }));
  return parseOrThrow(schema, env);
}
