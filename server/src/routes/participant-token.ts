import type { FastifyInstance } from 'fastify';
import { isStreamId } from '@tailcam/protocol/streams';
import type { LoginTokens } from '../auth/login-token';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import type { RateLimitRule, RateLimiter } from '../http/rate-limit';
import type { ZodTypeProvider } from '../http/zod-schema';
import { StageProviderError, type StageProvider } from '../providers/stage-provider';
import { errorResponses, tokenBody, tokenResponse } from './api-schemas';

export function registerParticipantTokenRoute(
  app: FastifyInstance,
  deps: {
    store: UserStore;
    loginTokens: LoginTokens;
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
        const header = request.headers.authorization;
        if (header === undefined) throw new HttpError(401, 'Missing bearer token');
        const match = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/.exec(header);
        if (match === null) throw new HttpError(401, 'Malformed Authorization header');
        const identity = await deps.loginTokens.verify(match[1]!);
        if (identity === undefined) throw new HttpError(401, 'Invalid or expired token');
        const user = await deps.store.findById(identity.userId);
        if (user === undefined) throw new HttpError(401, 'Invalid or expired token');
        if (user.disabledAt !== null) throw new HttpError(401, 'This account is disabled');
        // Issued before the user's last password change, disable or removal.
        if (identity.tokenGeneration !== user.tokenGeneration) {
          throw new HttpError(401, 'Invalid or expired token');
        }
        request.user = {
          id: user.id,
          username: user.username,
          tokenGeneration: user.tokenGeneration,
        };
        const verdict = await deps.rateLimiter.check(deps.rateLimit, user.id);
        if (!verdict.allowed) {
          request.log.warn(
            { userId: user.id, rule: deps.rateLimit.name },
            'token rate limit reached',
          );
          throw new HttpError(
            429,
            `Too many stream requests for this account; try again in ${verdict.retryAfterSeconds} seconds`,
            { 'retry-after': String(verdict.retryAfterSeconds) },
          );
        }
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

declare module 'fastify' {
  interface FastifyRequest {
    user?: { id: string; username: string; tokenGeneration: number };
  }
}
