/**
 * A synchronous signer for local participant tokens, for the API's hot path: the same token as
 * `issueParticipantToken` (same header, claims and order, HS256), signed with node:crypto's HMAC
 * and a key prepared once, instead of a WebCrypto key import and sign per token (about ten
 * times faster). Node only.
 */
import { createHmac, type KeyObject, createSecretKey } from 'node:crypto';
import {
  PARTICIPANT_TOKEN_ALGORITHM,
  participantTokenClaims,
  type IssueParticipantTokenInput,
} from './participant-token';

export type ParticipantTokenSignerInput = Omit<IssueParticipantTokenInput, 'secret'>;

const HEADER = Buffer.from(
  JSON.stringify({ alg: PARTICIPANT_TOKEN_ALGORITHM, typ: 'JWT' }),
).toString('base64url');

export function createParticipantTokenSigner(
  secret: Uint8Array,
): (input: ParticipantTokenSignerInput) => string {
  const key: KeyObject = createSecretKey(secret);
  return (input) => {
    const payload = Buffer.from(JSON.stringify(participantTokenClaims(input))).toString(
      'base64url',
    );
    const signature = createHmac('sha256', key).update(`${HEADER}.${payload}`).digest('base64url');
    return `${HEADER}.${payload}.${signature}`;
  };
}
