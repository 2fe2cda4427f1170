/** The two signing secrets: configured, or generated once into DATA_DIR (local provider). */
import { join } from 'node:path';
import { loadOrCreateSecret, STAGE_TOKEN_SECRET_FILE } from '@tailcam/protocol/secret-file';
import type { Config } from './config';

export const AUTH_SECRET_FILE = 'auth-secret';

export async function loadAuthSecret(config: Config): Promise<Uint8Array> {
  if (config.authSecret !== undefined) return new TextEncoder().encode(config.authSecret);
  // parseConfig requires AUTH_SECRET with ivs, so only the local default gets here.
  return loadOrCreateSecret(join(config.dataDir, AUTH_SECRET_FILE));
}

/** Signs local participant tokens; the local stage process reads the same file. */
export async function loadStageTokenSecret(
  config: Pick<Config, 'dataDir'> & { localStage: Pick<Config['localStage'], 'tokenSecret'> },
): Promise<Uint8Array> {
  if (config.localStage.tokenSecret !== undefined) {
    return new TextEncoder().encode(config.localStage.tokenSecret);
  }
  return loadOrCreateSecret(join(config.dataDir, STAGE_TOKEN_SECRET_FILE));
}

export const EVENT_WEBHOOK_SECRET_FILE = 'event-webhook-secret';

/** Signs the event webhooks (decision 0098): configured, or generated once into DATA_DIR. */
export async function loadEventWebhookSecret(
  config: Pick<Config, 'dataDir' | 'events'>,
): Promise<Uint8Array> {
  if (config.events.webhookSecret !== undefined) {
    return new TextEncoder().encode(config.events.webhookSecret);
  }
  return loadOrCreateSecret(join(config.dataDir, EVENT_WEBHOOK_SECRET_FILE));
}
