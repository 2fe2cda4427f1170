import { randomUUID } from 'node:crypto';
import { createParticipantTokenSigner } from '@tailcam/protocol/participant-token-signer';
import { StageProviderError, type StageProvider } from './stage-provider';

/**
 * Tokens for the offline local stage, in the shape shared through @tailcam/protocol. The stage is
 * reached through this server's `/stage/` proxy, so its URLs are PUBLIC_URL + `/stage` when
 * configured, else the origin the request came in on.
 */
export function createLocalStageProvider(options: {
  secret: Uint8Array;
  ttlMinutes: number;
  publicUrl: string | undefined;
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
          stageBaseUrl: `${options.publicUrl ?? request.requestOrigin}/stage`,
          ttlSeconds: options.ttlMinutes * 60,
        });
      } catch (error) {
        throw new StageProviderError('Could not issue a token for the local stage', {
          cause: error,
        });
      }
    },
  };
}
