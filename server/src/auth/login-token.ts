/**
 * Login tokens: HS256 JWTs signed with AUTH_SECRET, `sub` = user id, `name` = username. Their
 * audience differs from the local stage's participant tokens, so neither passes for the other.
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
});

export interface LoginIdentity {
  userId: string;
  username: string;
}

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
    issue({ userId, username }) {
      const issuedAt = Math.floor(now().getTime() / 1000);
      return new SignJWT({ name: username })
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
          requiredClaims: ['exp', 'sub'],
          currentDate: now(),
        });
        const claims = claimsSchema.safeParse(payload);
        if (!claims.success) return undefined;
        const identity = { userId: claims.data.sub, username: claims.data.name };
        if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
        verified.set(token, { identity, expiresAt: claims.data.exp * 1000 });
        return identity;
      } catch {
        return undefined;
      }
    },
  };
}
