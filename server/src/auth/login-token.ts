/**
 * Login tokens: HS256 JWTs signed with AUTH_SECRET, `sub` = user id, `name` = username, `gen` =
 * the user's token generation when it was issued (the route compares it with the user's current
 * one: a password change, disable or removal ends every token issued before it, however close in
 * time, with no clock involved). Their audience differs from the local stage's participant
 * tokens, so neither passes for the other.
 */
import { SignJWT, jwtVerify } from 'jose';
import { z } from 'zod';

export const LOGIN_TOKEN_ALGORITHM = 'HS256';
export const LOGIN_TOKEN_AUDIENCE = 'tailcam-api';
export const LOGIN_TOKEN_ISSUER = 'tailcam';

const claimsSchema = z.object({
  sub: z.uuid(),
  name: z.string(),
  exp: z.number().int(),
  iat: z.number(),
  // Tokens issued before generations existed carry none: the first generation.
  gen: z.number().int().min(0).default(0),
});

export interface LoginIdentity {
  userId: string;
  username: string;
  tokenGeneration: number;
}

/**
 * How far in the future a token's `iat` may lie: API instances behind one load balancer share
 * AUTH_SECRET, and their clocks may differ by this much. A later `iat` is not ours.
 */
export const MAX_CLOCK_SKEW_SECONDS = 60;

export interface LoginTokens {
  issue(identity: LoginIdentity): Promise<string>;
  /** Returns the identity, or undefined for any token that is not a valid, unexpired login token. */
  verify(token: string): Promise<LoginIdentity | undefined>;
}

/** Verified tokens are remembered (bounded) until they expire: a viewer reuses one token. */
const VERIFIED_CACHE_SIZE = 10_000;

export function createLoginTokens(options: {
  secret: Uint8Array;
  ttlHours: number;
  now?: () => Date;
}): LoginTokens {
  const now = options.now ?? (() => new Date());
  const verified = new Map<string, { identity: LoginIdentity; expiresAt: number }>();
  return {
    issue({ userId, username, tokenGeneration }) {
      const issuedAt = Math.floor(now().getTime() / 1000);
      return new SignJWT({ name: username, gen: tokenGeneration })
        .setProtectedHeader({ alg: LOGIN_TOKEN_ALGORITHM, typ: 'JWT' })
        .setSubject(userId)
        .setAudience(LOGIN_TOKEN_AUDIENCE)
        .setIssuer(LOGIN_TOKEN_ISSUER)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + options.ttlHours * 3600)
        .sign(options.secret);
    },
    async verify(token) {
      const cached = verified.get(token);
      if (cached !== undefined) {
        if (cached.expiresAt > now().getTime()) return cached.identity;
        verified.delete(token);
        return undefined;
      }
      try {
        const { payload } = await jwtVerify(token, options.secret, {
          algorithms: [LOGIN_TOKEN_ALGORITHM],
          audience: LOGIN_TOKEN_AUDIENCE,
          issuer: LOGIN_TOKEN_ISSUER,
          requiredClaims: ['exp', 'sub', 'iat'],
          currentDate: now(),
        });
        const claims = claimsSchema.safeParse(payload);
        if (!claims.success) return undefined;
        // jose checks `nbf` and `exp`, not whether `iat` lies ahead.
        if (claims.data.iat > now().getTime() / 1000 + MAX_CLOCK_SKEW_SECONDS) return undefined;
        const identity = {
          userId: claims.data.sub,
          username: claims.data.name,
          tokenGeneration: claims.data.gen,
        };
        if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
        verified.set(token, { identity, expiresAt: claims.data.exp * 1000 });
        return identity;
      } catch {
        return undefined;
      }
    },
  };
}
