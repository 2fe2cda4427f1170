/**
 * The local stage's participant token: the contract between the API (which issues it with the
 * `local` provider) and the local stage (which verifies it on every join).
 *
 * Its claims mirror those of an Amazon IVS participant token, so the browser SDK reads both the
 * same way: `jti` is the participant id, `topic` the stage id, `resource` the stage's ARN-like
 * name, `capabilities` what the holder may do, `events_url` / `whip_url` where to connect.
 * IVS signs with ES384 and AWS's key; the local stage uses HS256 and a secret shared by the two
 * processes.
 */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { z } from 'zod';

export const PARTICIPANT_TOKEN_ALGORITHM = 'HS256';
/** Distinguishes participant tokens from any other token signed by the same deployment. */
export const PARTICIPANT_TOKEN_AUDIENCE = 'tailcam-local-stage';

/**
 * Where a token's holder connects: an absolute URL, or a path on the origin the token came from
 * (`/stage/events`), as the API issues them when PUBLIC_URL is unset, so that no request's Host
 * header chooses where a browser connects.
 */
const stageEndpoint = z.union([z.url(), z.string().regex(/^\/(?!\/)[^\s\\]*$/)]);

/** An ICE server as RTCPeerConnection takes it, with the one credential type TURN REST gives. */
export interface IceServer {
  urls: string[];
  username: string;
  credential: string;
}

const iceServerClaim = z.object({
  urls: z.array(z.string().min(1)).min(1),
  username: z.string(),
  credential: z.string(),
});

export const participantTokenClaimsSchema = z.object({
  jti: z.string().min(1),
  topic: z.string().min(1),
  resource: z.string().min(1),
  user_id: z.string().min(1),
  capabilities: z.object({
    allow_publish: z.boolean(),
    allow_subscribe: z.boolean(),
  }),
  attributes: z.record(z.string(), z.string()),
  events_url: stageEndpoint,
  whip_url: stageEndpoint,
  iat: z.number().int(),
  exp: z.number().int(),
  /**
   * The account's token generation when the token was issued (decision 0058): the stage refuses
   * the token once the account's generation is higher. Absent from the operators' tokens
   * (`publish-token`, `subscribe-token`, the synthetic cameras'), which belong to no account.
   */
  gen: z.number().int().min(0).optional(),
  /**
   * TURN servers with short-lived credentials (protocol/src/turn.ts, decision 0063), for every
   * peer connection the holder's SDK makes. Absent when the deployment has no TURN server.
   */
  ice_servers: z.array(iceServerClaim).max(8).optional(),
});

export type ParticipantTokenClaims = z.infer<typeof participantTokenClaimsSchema>;

/**
 * The `user_id` of the synthetic cameras' PUBLISH tokens, by which the stage tells its own camera
 * process's WHIP sessions from an encoder's (local-stage/src/camera-link.ts): an operator's token
 * never carries it.
 */
export const SYNTHETIC_CAMERA_USER_ID = 'tailcam-synthetic-camera';

/**
 * The `user_id` of the recorder process's SUBSCRIBE tokens (docs/decisions/0072-recorder.md): the
 * stage does not count its subscriptions as demand, so a synthetic camera still encodes only while
 * a person watches. Only a holder of the stage's secret can sign one.
 */
export const RECORDER_USER_ID = 'tailcam-recorder';

export interface IssueParticipantTokenInput {
  secret: Uint8Array;
  participantId: string;
  stageId: string;
  userId: string;
  attributes: Record<string, string>;
  capabilities: { publish: boolean; subscribe: boolean };
  /**
   * Base URL the browser reaches the local stage at, e.g. `http://127.0.0.1:8080/stage`, or a path
   * (`/stage`) on the origin the token is fetched from.
   */
  stageBaseUrl: string;
  ttlSeconds: number;
  /** The account's token generation (a viewer's token); none for an operator's token. */
  tokenGeneration?: number;
  /** TURN servers and their credentials for the holder (none: the claim is left out). */
  iceServers?: IceServer[];
  now?: Date;
}

export function localStageResource(stageId: string): string {
  return `arn:tailcam:local:stage/${stageId}`;
}

/**
 * `events_url` (WebSocket) and `whip_url` (HTTP) for a stage base URL: the WHIP endpoint is the
 * stage's own (`{base}/whip/{stageId}`), where an encoder holding a PUBLISH token POSTs its offer.
 */
export function localStageEndpoints(
  stageBaseUrl: string,
  stageId: string,
): { eventsUrl: string; whipUrl: string } {
  const relative = stageBaseUrl.startsWith('/');
  // A path is resolved on a placeholder origin and given back as a path.
  const base = new URL(
    stageBaseUrl.endsWith('/') ? stageBaseUrl : `${stageBaseUrl}/`,
    relative ? 'http://origin.invalid' : undefined,
  );
  const events = new URL('events', base);
  const whip = new URL(`whip/${encodeURIComponent(stageId)}`, base);
  if (relative) return { eventsUrl: events.pathname, whipUrl: whip.pathname };
  events.protocol = events.protocol === 'https:' ? 'wss:' : 'ws:';
  return { eventsUrl: events.toString(), whipUrl: whip.toString() };
}

/**
 * A token's claims, in the order they are signed: `issueParticipantToken` and the synchronous
 * signer (participant-token-signer.ts) both sign exactly this object, so their tokens are equal.
 */
export function participantTokenClaims(
  input: Omit<IssueParticipantTokenInput, 'secret'>,
): ParticipantTokenClaims & { aud: string } {
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const { eventsUrl, whipUrl } = localStageEndpoints(input.stageBaseUrl, input.stageId);
  return {
    topic: input.stageId,
    resource: localStageResource(input.stageId),
    user_id: input.userId,
    capabilities: {
      allow_publish: input.capabilities.publish,
      allow_subscribe: input.capabilities.subscribe,
    },
    attributes: input.attributes,
    events_url: eventsUrl,
    whip_url: whipUrl,
    jti: input.participantId,
    aud: PARTICIPANT_TOKEN_AUDIENCE,
    iat: nowSeconds,
    exp: nowSeconds + input.ttlSeconds,
    ...(input.tokenGeneration === undefined ? {} : { gen: input.tokenGeneration }),
    ...(input.iceServers === undefined || input.iceServers.length === 0
      ? {}
      : { ice_servers: input.iceServers }),
  };
}

export async function issueParticipantToken(input: IssueParticipantTokenInput): Promise<string> {
  return new SignJWT(participantTokenClaims(input))
    .setProtectedHeader({ alg: PARTICIPANT_TOKEN_ALGORITHM, typ: 'JWT' })
    .sign(input.secret);
}

export type ParticipantTokenFailure = 'malformed' | 'expired' | 'invalid_signature' | 'not_allowed';

export class ParticipantTokenError extends Error {
  constructor(
    readonly reason: ParticipantTokenFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ParticipantTokenError';
  }
}

export interface VerifyParticipantTokenOptions {
  secret: Uint8Array;
  /** The stage being joined: the token's `topic` must name it. */
  stageId: string;
  /** The capability the join needs. */
  capability: 'subscribe' | 'publish';
  now?: Date;
}

/** Verifies signature, algorithm, audience, expiry, topic and capability; returns the claims. */
export async function verifyParticipantToken(
  token: string,
  options: VerifyParticipantTokenOptions,
): Promise<ParticipantTokenClaims> {
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, options.secret, {
      algorithms: [PARTICIPANT_TOKEN_ALGORITHM],
      audience: PARTICIPANT_TOKEN_AUDIENCE,
      currentDate: options.now,
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) {
      throw new ParticipantTokenError('expired', 'Token is expired');
    }
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
      throw new ParticipantTokenError('invalid_signature', 'Token signature is invalid');
    }
    throw new ParticipantTokenError('malformed', 'Token is malformed');
  }
  const parsed = participantTokenClaimsSchema.safeParse(payload);
  if (!parsed.success) throw new ParticipantTokenError('malformed', 'Token is malformed');
  const claims = parsed.data;
  if (claims.topic !== options.stageId) {
    throw new ParticipantTokenError('not_allowed', 'Token is not valid for this stage');
  }
  const allowed =
    options.capability === 'subscribe'
      ? claims.capabilities.allow_subscribe
      : claims.capabilities.allow_publish;
  if (!allowed) {
    throw new ParticipantTokenError('not_allowed', `Token does not allow ${options.capability}`);
  }
  return claims;
}
