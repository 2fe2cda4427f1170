/**
 * Checks a participant token at join: signature, expiry, audience, that its `topic` names a
 * stage this process serves, the subscribe capability, and for an account's token that it was
 * not issued before the account's last password change, disable or removal
 * (token-generations.ts). Failures become IVS-style stage errors (code + message) for the SDK.
 */
import { decodeJwt } from 'jose';
import {
  ParticipantTokenError,
  verifyParticipantToken,
  type ParticipantTokenClaims,
} from '@tailcam/protocol/participant-token';
import { STAGE_ERROR_CODES, STAGE_ERROR_MESSAGES } from '../../signalling';
import type { GenerationVerdict, TokenGenerations } from './token-generations';
import { EndpointError } from '../media/sdp/endpoint-error';

/**
 * How long a join or an offer with an account's token waits for the API's table of token
 * generations (a stage that has just started) before it is refused as "try again".
 */
const GENERATIONS_WAIT_MS = 3_000;

/**
 * A refused join: an IVS error code, the message the viewer sees (IVS's text for the code unless
 * given), and details for logs and curious developers (why exactly).
 */
export class JoinRefusedError extends Error {
  constructor(
    readonly code: number,
    message?: string,
    readonly details = '',
  ) {
    super(message || (STAGE_ERROR_MESSAGES[code] ?? 'Operation failed'));
    this.name = 'JoinRefusedError';
  }
}

/**
 * What the table says of the token's account, waiting a little for a table that has not come
 * yet; an operator's token (no `gen`) belongs to no account and is current.
 */
async function generationVerdict(
  claims: ParticipantTokenClaims,
  generations: TokenGenerations,
): Promise<GenerationVerdict> {
  if (claims.gen === undefined) return 'current';
  const verdict = generations.verdict(claims.user_id, claims.gen);
  if (verdict !== 'no-table') return verdict;
  await generations.whenLoaded(GENERATIONS_WAIT_MS);
  return generations.verdict(claims.user_id, claims.gen);
}

export async function verifyJoinToken(
  token: string,
  options: {
    secret: Uint8Array;
    stageIds: readonly string[];
    generations: TokenGenerations;
    now?: Date;
  },
): Promise<ParticipantTokenClaims> {
  let topic: unknown;
  try {
    topic = decodeJwt(token).topic;
  } catch {
    throw new JoinRefusedError(STAGE_ERROR_CODES.TOKEN_MALFORMED, undefined, 'Not a JWT');
  }
  if (typeof topic !== 'string' || !options.stageIds.includes(topic)) {
    throw new JoinRefusedError(
      STAGE_ERROR_CODES.TOKEN_NOT_ALLOWED,
      undefined,
      'Token is not valid for a stage this local stage serves',
    );
  }
  let claims: ParticipantTokenClaims;
  try {
    claims = await verifyParticipantToken(token, {
      secret: options.secret,
      stageId: topic,
      capability: 'subscribe',
      now: options.now,
    });
  } catch (error) {
    if (!(error instanceof ParticipantTokenError)) throw error;
    switch (error.reason) {
      case 'expired':
        throw new JoinRefusedError(STAGE_ERROR_CODES.TOKEN_EXPIRED, undefined, error.message);
      case 'not_allowed':
        throw new JoinRefusedError(STAGE_ERROR_CODES.TOKEN_NOT_ALLOWED, undefined, error.message);
      case 'invalid_signature':
      case 'malformed':
        throw new JoinRefusedError(STAGE_ERROR_CODES.TOKEN_MALFORMED, undefined, error.message);
    }
  }
  switch (await generationVerdict(claims, options.generations)) {
    case 'current':
      return claims;
    case 'no-table':
      throw new JoinRefusedError(
        STAGE_ERROR_CODES.FAILED,
        undefined,
        "The stage has not yet received the accounts' token generations from the API",
      );
    case 'revoked':
    case 'unknown-user':
      // IVS's code for a token that is no longer valid.
      throw new JoinRefusedError(
        STAGE_ERROR_CODES.TOKEN_EXPIRED,
        undefined,
        "Token was revoked: issued before its account's password change, disable or removal",
      );
  }
}

/**
 * Checks the Bearer token of a WHIP publisher (`publish`) or a WHEP player (`subscribe`) for
 * `stageId`: 401 when it is not a live token signed with the stage's secret, or an account's
 * token issued before the account's last change; 403 when it is one but lacks the capability,
 * or is for another stage; 503 while the stage waits for the API's table of token generations.
 */
export async function verifyBearerToken(
  token: string,
  options: {
    secret: Uint8Array;
    stageId: string;
    capability: 'publish' | 'subscribe';
    generations: TokenGenerations;
    now?: Date;
  },
): Promise<ParticipantTokenClaims> {
  let topic: unknown;
  try {
    topic = decodeJwt(token).topic;
  } catch {
    throw new EndpointError(401, 'The token is not valid');
  }
  let claims: ParticipantTokenClaims;
  try {
    // Verified against its own stage first, so that a token for another stage is told apart.
    claims = await verifyParticipantToken(token, {
      secret: options.secret,
      stageId: typeof topic === 'string' ? topic : '',
      capability: options.capability,
      now: options.now,
    });
  } catch (error) {
    if (!(error instanceof ParticipantTokenError)) throw error;
    if (error.reason === 'not_allowed') {
      throw new EndpointError(
        403,
        options.capability === 'publish'
          ? 'The token does not allow publishing'
          : 'The token does not allow watching (it is a PUBLISH token)',
      );
    }
    throw new EndpointError(
      401,
      error.reason === 'expired' ? 'The token has expired' : 'The token is not valid',
    );
  }
  if (claims.topic !== options.stageId) {
    throw new EndpointError(403, `The token is for another stage than ${options.stageId}`);
  }
  switch (await generationVerdict(claims, options.generations)) {
    case 'current':
      return claims;
    case 'no-table':
      throw new EndpointError(503, 'The stage is starting; try again shortly');
    case 'revoked':
    case 'unknown-user':
      throw new EndpointError(401, 'The token has been revoked');
  }
}
