import type { FastifyInstance } from 'fastify';
import { canonicalUsername } from '../accounts/username';
import type { LoginTokens } from '../auth/login-token';
import type { PasswordVerifier } from '../auth/passwords';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import type { LoginRateLimits, RateLimiter, RateLimitVerdict } from '../http/rate-limit';
import { addressKey } from '../stage-edge/socket-seats';
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
    limits: LoginRateLimits;
  },
): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/login',
    {
      schema: { body: loginBody, response: { 200: tokenResponse, ...errorResponses } },
    },
    async (request) => {
      const { username, password } = request.body;
      const { rateLimiter, limits } = deps;
      const limit = async (rule: { name: string }, check: Promise<RateLimitVerdict>) => {
        const verdict = await check;
        if (verdict.allowed) return;
        const seconds = verdict.retryAfterSeconds;
        request.log.warn({ rule: rule.name }, 'login rate limit reached');
        throw new HttpError(
          429,
          `Too many sign-in attempts; try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`,
          { 'retry-after': String(seconds) },
        );
      };
      // IPv6 by its /64, as every per-address limit counts: anyone holds the whole block.
      const address = addressKey(request.ip);
      await limit(limits.perAddress, rateLimiter.check(limits.perAddress, address));
      // A name outside the grammar names no account: it is refused as an unknown user is, after
      // the same password work, and never gets a counter of its own.
      const canonical = canonicalUsername(username);
      if (canonical !== undefined) {
        // The name at this address before the name: what this address's delays refuse never
        // counts toward the name's ceiling, which the owner elsewhere would feel.
        const { perNameAndAddress, perName } = limits;
        await limit(
          perNameAndAddress,
          rateLimiter.checkWithDelay(perNameAndAddress, `${canonical} ${address}`),
        );
        await limit(perName, rateLimiter.checkWithDelay(perName, canonical));
      }
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
