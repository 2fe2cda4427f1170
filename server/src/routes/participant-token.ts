import type { FastifyInstance } from 'fastify';
import { isStreamId } from '@tailcam/protocol/streams';
import type { LoginTokens } from '../auth/login-token';
import { signedInViewer } from '../auth/signed-in-viewer';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import { countForAccount, type RateLimitRule, type RateLimiter } from '../http/rate-limit';
import type { ZodTypeProvider } from '../http/zod-schema';
import { StageProviderError, type StageProvider } from '../providers/stage-provider';
import { errorResponses, tokenBody, tokenResponse } from './api-schemas';

export function registerParticipantTokenRoute(
  app: FastifyInstance,
  deps: {
    store: UserStore;
    loginTokens: LoginTokens;
    viewerPresent?: () => void;
    stageProvider: StageProvider;
    rateLimiter: RateLimiter;
    /** Participant tokens per user. */
    rateLimit: RateLimitRule;
  },
): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/token',
    {
      schema: { body: tokenBody, response: { 200: tokenResponse, ...errorResponses } },
      // Authentication comes first: an anonymous caller learns nothing about the body's rules.
      onRequest: async (request) => {
        const user = await signedInViewer(request, deps);
        request.user = user;
        await countForAccount(
          deps.rateLimiter,
          deps.rateLimit,
          request,
          user.id,
          'stream requests',
        );
      },
    },
    async (request) => {
      const { stageId, clientId } = request.body;
      if (!isStreamId(stageId)) throw new HttpError(404, `Unknown stream: ${stageId}`);
      const user = request.user;
      if (user === undefined) throw new Error('authentication hook did not run');
      try {
        const token = await deps.stageProvider.createParticipantToken({
          stageId,
          clientId,
          userId: user.id,
          username: user.username,
          tokenGeneration: user.tokenGeneration,
        });
        request.log.info({ userId: user.id, stageId }, 'participant token issued');
        return { token };
      } catch (error) {
        if (error instanceof HttpError) throw error;
        const publicMessage =
          error instanceof StageProviderError
            ? error.publicMessage
            : 'Could not get a participant token';
        request.log.error(
          { err: error, provider: deps.stageProvider.name, stageId },
          'stage provider failed',
        );
        throw new HttpError(502, publicMessage);
      }
    },
  );
}
