import { randomUUID } from 'node:crypto';
import { loopbackJson } from '@tailcam/protocol/loopback-json';
import { createParticipantTokenSigner } from '@tailcam/protocol/participant-token-signer';
import {
  END_USER_SESSIONS_PATH,
  endUserSessionsAnswer,
  issueStageControlToken,
  PRESENCE_PATH,
  presenceAnswer,
  TOKEN_GENERATIONS_PATH,
  tokenGenerationsAnswer,
} from '@tailcam/protocol/stage-control';
import { turnIceServers, type TurnSettings } from '@tailcam/protocol/turn';
import type { UserTokenGeneration } from '../db/user-store';
import { StageProviderError, type StageProvider } from './stage-provider';

export const CONTROL_TIMEOUT_MS = 5_000;

/** Where the stage's control routes are (LOCAL_STAGE_URL), and the secret their token is signed with. */
export interface StageControl {
  url: string;
  /** The participant-token secret the stage shares with the API (decision 0082). */
  secret: Uint8Array;
}

/** A call to the stage's loopback-only control surface: its parsed answer, or it throws. */
export async function callStageControl(
  stage: StageControl,
  request: {
    method: 'GET' | 'PUT' | 'POST';
    path: string;
    body?: unknown;
    signal?: AbortSignal;
    /** How long the stage may take to answer: longer for a held answer (a long poll). */
    timeoutMs?: number;
  },
): Promise<unknown> {
  // Over node:http, not fetch: fetch's timers tick every 499 ms while the long poll is held.
  return loopbackJson(`${stage.url}${request.path}`, {
    method: request.method,
    body: request.body,
    signal: request.signal,
    bearer: await issueStageControlToken(stage.secret),
    timeoutMs: request.timeoutMs ?? CONTROL_TIMEOUT_MS,
  });
}

/**
 * Tells the local stage (LOCAL_STAGE_URL) that a user's sign-in was ended: their
 * tokens of older generations are refused, and their sessions end. Through its loopback-only
 * control route, which the `/stage/` proxy never reaches. Throws when the stage does not answer
 * as expected.
 */
export async function endLocalStageSessions(
  stage: StageControl,
  change: UserTokenGeneration,
): Promise<number> {
  const answer = await callStageControl(stage, {
    method: 'POST',
    path: END_USER_SESSIONS_PATH,
    body: change,
  });
  return endUserSessionsAnswer.parse(answer).ended;
}

/** Tells the local stage of a new account's token generation (else it refuses its tokens). */
export async function addLocalStageAccount(
  stage: StageControl,
  account: UserTokenGeneration,
): Promise<void> {
  const answer = await callStageControl(stage, {
    method: 'POST',
    path: TOKEN_GENERATIONS_PATH,
    body: account,
  });
  tokenGenerationsAnswer.parse(answer);
}

/** The API tells the stage of a signed-in viewer at most this often (decision 0074). */
export const PRESENCE_INTERVAL_MS = 5_000;

/**
 * Tells the local stage that a signed-in viewer is about, so that its sleeping cameras wake before
 * a click (decision 0074): at most one call every `intervalMs` per API process, fire and forget
 * (the request that led to it never waits). A failure is dropped: a stage that is down says so in
 * its health, and the viewer's join wakes the cameras anyway.
 */
export function localStagePresence(
  stage: StageControl,
  options: { intervalMs?: number; now?: () => number } = {},
): () => void {
  const intervalMs = options.intervalMs ?? PRESENCE_INTERVAL_MS;
  const now = options.now ?? (() => performance.now());
  let lastCallMs: number | undefined;
  return () => {
    const at = now();
    if (lastCallMs !== undefined && at - lastCallMs < intervalMs) return;
    lastCallMs = at;
    callStageControl(stage, { method: 'POST', path: PRESENCE_PATH })
      .then((answer) => presenceAnswer.parse(answer))
      .catch(() => undefined);
  };
}

/**
 * Tokens for the offline local stage, in the shape shared through @tailcam/protocol. The stage is
 * reached through this server's `/stage/` proxy, so its URLs are PUBLIC_URL + `/stage` when
 * configured, else paths (`/stage/events`) on the origin the browser fetched the token from:
 * never a name taken from a request's Host header. With a TURN server configured, each token
 * carries short-lived credentials for it (`ice_servers`, decision 0063).
 */
export function createLocalStageProvider(options: {
  secret: Uint8Array;
  ttlMinutes: number;
  publicUrl: string | undefined;
  /** LOCAL_STAGE_URL, for the stage's control route. */
  stageUrl: string;
  /** TURN_URLS and TURN_SECRET; none: tokens carry no ICE servers. */
  turn?: TurnSettings;
  /** The presence call's clock (tests). */
  presence?: { now?: () => number };
}): StageProvider {
  const sign = createParticipantTokenSigner(options.secret);
  const stage: StageControl = { url: options.stageUrl, secret: options.secret };
  return {
    name: 'local',
    async createParticipantToken(request) {
      try {
        return sign({
          participantId: randomUUID(),
          stageId: request.stageId,
          userId: request.userId,
          tokenGeneration: request.tokenGeneration,
          attributes: { clientId: request.clientId },
          capabilities: { publish: false, subscribe: true },
          stageBaseUrl: `${options.publicUrl ?? ''}/stage`,
          ttlSeconds: options.ttlMinutes * 60,
          iceServers:
            options.turn === undefined ? undefined : turnIceServers(options.turn, request.userId),
        });
      } catch (error) {
        throw new StageProviderError('Could not issue a token for the local stage', {
          cause: error,
        });
      }
    },
    endUserSessions: (change) => endLocalStageSessions(stage, change),
    accountAdded: (account) => addLocalStageAccount(stage, account),
    viewerPresent: localStagePresence(stage, options.presence),
  };
}
