import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { createParticipantTokenSigner } from '@tailcam/protocol/participant-token-signer';
import { StageProviderError, type StageProvider } from './stage-provider';

const CONTROL_TIMEOUT_MS = 5_000;
const endedAnswer = z.object({ ended: z.number().int().min(0) });

/**
 * Asks the local stage at `stageUrl` (LOCAL_STAGE_URL) to end a user's sessions through its
 * loopback-only control route, which the `/stage/` proxy never reaches. Throws when the stage
 * does not answer as expected.
 */
export async function endLocalStageSessions(stageUrl: string, userId: string): Promise<number> {
  const response = await fetch(`${stageUrl}/_control/end-user-sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userId }),
    signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`the local stage answered ${response.status}`);
  return endedAnswer.parse(await response.json()).ended;
}

/**
 * Tokens for the offline local stage, in the shape shared through @tailcam/protocol. The stage is
 * reached through this server's `/stage/` proxy, so its URLs are PUBLIC_URL + `/stage` when
 * configured, else paths (`/stage/events`) on the origin the browser fetched the token from:
 * never a name taken from a request's Host header.
 */
export function createLocalStageProvider(options: {
  secret: Uint8Array;
  ttlMinutes: number;
  publicUrl: string | undefined;
  /** LOCAL_STAGE_URL, for the stage's control route. */
  stageUrl: string;
}): StageProvider {
  const sign = createParticipantTokenSigner(options.secret);
  return {
    name: 'local',
    async createParticipantToken(request) {
      try {
        return sign({
          participantId: randomUUID(),
          stageId: request.stageId,
          userId: request.userId,
          attributes: { clientId: request.clientId },
          capabilities: { publish: false, subscribe: true },
          stageBaseUrl: `${options.publicUrl ?? ''}/stage`,
          ttlSeconds: options.ttlMinutes * 60,
        });
      } catch (error) {
        throw new StageProviderError('Could not issue a token for the local stage', {
          cause: error,
        });
      }
    },
    endUserSessions: (userId) => endLocalStageSessions(options.stageUrl, userId),
  };
}
