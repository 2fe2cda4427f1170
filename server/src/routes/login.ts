import type { FastifyInstance } from 'fastify';
import { canonicalUsername } from '../accounts/username';
import type { LoginTokens } from '../auth/login-token';
import type { PasswordVerifier } from '../auth/passwords';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import { LOGIN_RATE_LIMITS, type RateLimitRule, type RateLimiter } from '../http/rate-limit';
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
      const limit = async (rule: RateLimitRule, key: string) => {
        const verdict = await deps.rateLimiter.check(rule, key);
        if (verdict.allowed) return;
        request.log.warn({ rule: rule.name }, 'login rate limit reached');
        throw new HttpError(
          429,
          `Too many sign-in attempts; try again in ${verdict.retryAfterSeconds} seconds`,
          { 'retry-after': String(verdict.retryAfterSeconds) },
        );
      };
      await limit(LOGIN_RATE_LIMITS.perAddress, request.ip);
      // A name outside the grammar names no account: it is refused as an unknown user is, after
      // the same password work, and never gets a username counter of its own.
      const canonical = canonicalUsername(username);
      if (canonical !== undefined) await limit(LOGIN_RATE_LIMITS.perUsername, canonical);
      const user = canonical === undefined ? undefined : await deps.store.findByUsername(canonical);
      const passwordMatches = await deps.passwords.verify(user?.passwordHash, password);
      if (user === undefined || !passwordMatches || user.disabledAt !== null) {
        request.log.info(
          {
            reason:
              canonical === undefined
                ? 'invalid-name'
                : user === undefined
                  ? 'unknown'
                  : user.disabledAt
                    ? 'disabled'
                    : 'password',
          },
          'login refused',
        );
        throw new HttpError(401, INVALID_CREDENTIALS);
      }
      request.log.info({ userId: user.id }, 'login');
      return {
        token: await deps.loginTokens.issue({
          userId: user.id,
          username: user.username,
          tokenGeneration: user.tokenGeneration,
        }),
      };
    },
  );
}
