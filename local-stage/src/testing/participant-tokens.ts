/**
 * Participant tokens for the stage's unit tests, signed as the API signs them: a test names only
 * what it is about (the stage, the capability, a user) and takes the rest from here. One more
 * claim of the token is one more default below.
 */
import {
  issueParticipantToken,
  type IssueParticipantTokenInput,
} from '@tailcam/protocol/participant-token';

export const SUBSCRIBE = { publish: false, subscribe: true } as const;
export const PUBLISH = { publish: true, subscribe: false } as const;

export type TestTokenInput = Pick<IssueParticipantTokenInput, 'secret' | 'stageId'> &
  Partial<Omit<IssueParticipantTokenInput, 'secret' | 'stageId' | 'stageBaseUrl'>> & {
    /** The stage's origin (`running.url`); the token's base URL is its `/stage`. */
    stageUrl: string;
    /** A base URL of the test's own choosing instead of `${stageUrl}/stage`. */
    stageBaseUrl?: string;
  };

/**
 * A signed participant token: a viewer's (SUBSCRIBE) for a minute unless the input says more (a
 * field given as undefined takes the default).
 */
export function testParticipantToken({ stageUrl, ...input }: TestTokenInput): Promise<string> {
  const given = Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== undefined),
  ) as Partial<IssueParticipantTokenInput>;
  return issueParticipantToken({
    secret: input.secret,
    stageId: input.stageId,
    participantId: crypto.randomUUID(),
    userId: 'user-1',
    attributes: {},
    capabilities: SUBSCRIBE,
    stageBaseUrl: `${stageUrl}/stage`,
    ttlSeconds: 60,
    ...given,
  });
}
