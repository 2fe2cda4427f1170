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
 *   GET  /_control/metrics                         the stage's figures, Prometheus text (0097)
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

/**
 * `GET /_control/metrics`: the stage's figures in the Prometheus text format, which the API's
 * metrics endpoint serves with its own (docs/decisions/0097-metrics-endpoint.md).
 */
export const STAGE_METRICS_PATH = '/_control/metrics';
export const presenceAnswer = z.object({ wasAsleep: z.boolean() });

/**
 * `GET /_control/events?after=N&run=R&wait=S` (decision 0098): the stage's participant events
 * after sequence number N of run R, oldest first, at most MAX_STAGE_EVENTS_A_PAGE, and each
 * aircraft as it is now. With `wait` and nothing after N in run R, held up to S seconds until an
 * event comes. The stage keeps its last events in a bounded ring: `first` is the oldest it still
 * has, so a caller whose N is below `first - 1` has missed `first - 1 - N` of them; another run
 * (a restarted stage) starts again from its own first event.
 */
export const STAGE_EVENTS_PATH = '/_control/events';
export const MAX_STAGE_EVENTS_A_PAGE = 200;

/** IVS's "IVS Stage Update" event names the local stage has. */
export const STAGE_EVENT_NAMES = [
  'Participant Joined',
  'Participant Left',
  'Participant Published',
  'Participant Unpublished',
] as const;
export type StageEventName = (typeof STAGE_EVENT_NAMES)[number];

export const stageEvent = z.object({
  seq: z.number().int().min(1),
  /** ISO time it happened. */
  time: z.string().min(1).max(40),
  stageId: z.string().min(1).max(64),
  name: z.enum(STAGE_EVENT_NAMES),
  /** A publisher (a real encoder or the synthetic camera) or a viewer (a person). */
  role: z.enum(['publisher', 'viewer']),
  participantId: z.string().min(1).max(128),
  userId: z.string().max(128),
});
export type StageEvent = z.infer<typeof stageEvent>;

const aircraftNow = z.object({
  /** The connected publishers, oldest first: a real encoder, the synthetic camera, or both. */
  publishers: z.array(
    z.object({
      participantId: z.string().min(1).max(128),
      kind: z.enum(['camera', 'encoder']),
      /** ISO time it connected. */
      since: z.string().min(1).max(40),
    }),
  ),
  /**
   * The shown publisher's video, bits a second over the last 2 s; null when none is shown, or
   * before its first packet.
   */
  bitrate: z.number().min(0).nullable(),
  /** Persons watching (not the recorder or the thumbnail process). */
  viewers: z.number().int().min(0),
  /**
   * Its synthetic camera sleeps because nobody watched for a while (decision 0074): not
   * publishing, yet back at the next viewer, so the aircraft is not off air.
   */
  cameraAsleep: z.boolean(),
});

export const stageEventsAnswer = z.object({
  run: z.string().min(1).max(64),
  /** The oldest event the ring still has (its next one when empty). */
  first: z.number().int().min(1),
  /** The newest event's number so far (0: none yet). */
  last: z.number().int().min(0),
  events: z.array(stageEvent).max(MAX_STAGE_EVENTS_A_PAGE),
  aircraft: z.record(z.string(), aircraftNow),
});
export type StageEventsAnswer = z.infer<typeof stageEventsAnswer>;
export type AircraftNow = z.infer<typeof aircraftNow>;
