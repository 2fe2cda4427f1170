import type { FastifyInstance } from 'fastify';
import type { LoginTokens } from '../auth/login-token';
import type { PasswordVerifier } from '../auth/passwords';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import { LOGIN_RATE_LIMITS, type RateLimiter } from '../http/rate-limit';
import type { ZodTypeProvider } from '../http/zod-schema';
import { errorResponses, loginBody, tokenResponse } from './api-schemas';

export const INVALID_CREDENTIALS = 'Invalid credentials';

export function registerLoginRoute(
  app: FastifyInstance,
  deps: {
    store: UserStore;
    passwords: PasswordVerifier;
    loginTokens: LoginTokens;
    rateLimiter: RateLimiter;
  },
): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/login',
    {
      schema: { body: loginBody, response: { 200: tokenResponse, ...errorResponses } },
    },
    async (request) => {
      const { username, password } = request.body;
      for (const [rule, key] of [
        [LOGIN_RATE_LIMITS.perAddress, request.ip],
        [LOGIN_RATE_LIMITS.perUsername, username.toLowerCase()],
      ] as const) {
        const verdict = await deps.rateLimiter.check(rule, key);
        if (!verdict.allowed) {
          request.log.warn({ rule: rule.name }, 'login rate limit reached');
          throw new HttpError(
            429,
            `Too many sign-in attempts; try again in ${verdict.retryAfterSeconds} seconds`,
            { 'retry-after': String(verdict.retryAfterSeconds) },
          );
        }
      }
      const user = await deps.store.findByUsername(username);
      const passwordMatches = await deps.passwords.verify(user?.passwordHash, password);
      if (user === undefined || !passwordMatches || user.disabledAt !== null) {
        request.log.info(
          { reason: user === undefined ? 'unknown' : user.disabledAt ? 'disabled' : 'password' },
          'login refused',
        );
        throw new HttpError(401, INVALID_CREDENTIALS);
      }
      request.log.info({ userId: user.id }, 'login');
      return { token: await deps.loginTokens.issue({ userId: user.id, username: user.username }) };
    },
  );
}
