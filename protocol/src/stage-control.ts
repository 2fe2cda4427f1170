/**
 * The API's calls to the local stage's loopback-only control surface, the shapes both sides
 * parse: the table of the accounts' token generations (decision 0058), ending a user's
 * sessions (decision 0053), and a viewer's presence (decision 0074).
 *
 *   GET  /_control/token-generations[?wait=S&run=R] → {loaded, users, stageRun}; with `wait`
 *                                                  (1–60), a stage that has the table, and is
 *                                                  run R when `run` is given, holds the answer up
 *                                                  to S seconds (the API's long poll)
 *   PUT  /_control/token-generations {generations} the whole table, every account → {loaded, users, stageRun}
 *   POST /_control/token-generations {userId, tokenGeneration}   a new account → {loaded, users, stageRun}
 *   POST /_control/end-user-sessions {userId, tokenGeneration}   an account's sign-in was ended:
 *                                                  tokens issued before refused, sessions ended
 *                                                  → {ended}
 *   POST /_control/presence                        a signed-in viewer is about: sleeping cameras
 *                                                  wake (decision 0074) → {wasAsleep}
 *
 * Each needs `Authorization: Bearer` with a stage control token (decision 0082): 401 without one.
 */
import { z } from 'zod';
import { issueLoopbackToken, verifyLoopbackToken } from './loopback-token';

/** The routes' token: signed with the stage's secret, which only Tailcam's own processes read. */
const CONTROL_TOKEN = { audience: 'tailcam-stage-control', subject: 'tailcam-api' };

/** The Bearer token of a call to the stage's control routes (one a call: it lives a minute). */
export function issueStageControlToken(secret: Uint8Array, now = new Date()): Promise<string> {
  return issueLoopbackToken(secret, CONTROL_TOKEN, now);
}

/** True when `token` is a live stage control token signed with `secret`. */
export function verifyStageControlToken(token: string, secret: Uint8Array): Promise<boolean> {
  return verifyLoopbackToken(token, secret, CONTROL_TOKEN);
}

export const TOKEN_GENERATIONS_PATH = '/_control/token-generations';
export const END_USER_SESSIONS_PATH = '/_control/end-user-sessions';

/** The longest a `GET ?wait=S` is held, in seconds. */
export const MAX_TOKEN_GENERATIONS_WAIT_SECONDS = 60;

/** The whole table's body may be this large (about 100,000 accounts). */
export const MAX_TOKEN_GENERATIONS_BYTES = 8 * 1024 * 1024;

/** The most accounts the stage's table holds: a table or change past it is refused (413). */
export const MAX_TOKEN_GENERATION_ACCOUNTS = 100_000;

/**
 * The highest generation the API can have: its column is a PostgreSQL `integer`. A larger one
 * was never the API's, and is refused rather than lock the account out until the stage restarts.
 */
export const MAX_TOKEN_GENERATION = 2_147_483_647;

const userId = z.string().min(1).max(128);
const tokenGeneration = z.number().int().min(0).max(MAX_TOKEN_GENERATION);

/** `PUT`: every account's token generation, by user id. */
export const tokenGenerationsBody = z.object({ generations: z.record(userId, tokenGeneration) });
export type TokenGenerationsBody = z.infer<typeof tokenGenerationsBody>;

/** `POST`: one account's token generation (a new account). */
export const tokenGenerationBody = z.object({ userId, tokenGeneration });

/**
 * What each method answers: whether the stage has the whole table, how many it names, and which
 * run of the stage process this is (random at each start). A stage that restarted is sent the
 * whole table at once even when it already says `loaded`: another caller may have loaded it.
 */
export const tokenGenerationsAnswer = z.object({
  loaded: z.boolean(),
  users: z.number().int(),
  stageRun: z.string().min(1).max(64),
});

/**
 * `POST /_control/end-user-sessions`: the API ended this user's sign-in. `tokenGeneration`, the
 * account's new one, refuses every token issued before it (absent: sessions end, nothing more).
 */
export const endUserSessionsBody = z.object({
  userId,
  tokenGeneration: tokenGeneration.optional(),
});
export const endUserSessionsAnswer = z.object({ ended: z.number().int().min(0) });

/**
 * `POST /_control/presence` (no body): the API saw a signed-in viewer, who may want a picture
 * soon, so a stage whose synthetic cameras sleep wakes them now (decision 0074). Answers
 * whether they were asleep. The API calls it at most once every few seconds, never waiting.
 */
export const PRESENCE_PATH = '/_control/presence';
export const presenceAnswer = z.object({ wasAsleep: z.boolean() });
