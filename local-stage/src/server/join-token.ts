/**
 * Checks a participant token at join: signature, expiry, audience, that its `topic` names a
 * stage this process serves, and the subscribe capability. Failures become IVS-style stage
 * errors (code + message) for the SDK.
 */
import { decodeJwt } from 'jose';
import {
  ParticipantTokenError,
  verifyParticipantToken,
  type ParticipantTokenClaims,
} from '@tailcam/protocol/participant-token';
import { STAGE_ERROR_CODES } from '../signalling';

export class JoinRefusedError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'JoinRefusedError';
  }
}

export async function verifyJoinToken(
  token: string,
  options: { secret: Uint8Array; stageIds: readonly string[]; now?: Date },
): Promise<ParticipantTokenClaims> {
  let topic: unknown;
  try {
    topic = decodeJwt(token).topic;
  } catch {
    throw new JoinRefusedError(STAGE_ERROR_CODES.TOKEN_MALFORMED, 'Token is malformed');
  }
  if (typeof topic !== 'string' || !options.stageIds.includes(topic)) {
    throw new JoinRefusedError(
      STAGE_ERROR_CODES.TOKEN_NOT_ALLOWED,
      'Token is not valid for a stage this local stage serves',
    );
  }
  try {
    return await verifyParticipantToken(token, {
      secret: options.secret,
      stageId: topic,
      capability: 'subscribe',
      now: options.now,
    });
  } catch (error) {
    if (!(error instanceof ParticipantTokenError)) throw error;
    switch (error.reason) {
      case 'expired':
        throw new JoinRefusedError(STAGE_ERROR_CODES.TOKEN_EXPIRED, error.message);
      case 'not_allowed':
        throw new JoinRefusedError(STAGE_ERROR_CODES.TOKEN_NOT_ALLOWED, error.message);
      case 'invalid_signature':
      case 'malformed':
        throw new JoinRefusedError(STAGE_ERROR_CODES.TOKEN_MALFORMED, error.message);
    }
  }
}
