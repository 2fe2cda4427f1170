/**
 * The Bearer token our own processes show each other on loopback (the camera link, decision 0054;
 * the stage's control routes, decision 0082): a short-lived HS256 JWT signed with the stage's
 * secret, the 0600 file in DATA_DIR (or STAGE_TOKEN_SECRET) that only Tailcam's own processes
 * read. Each door has its own audience, so a token for one never opens another.
 */
import { SignJWT, jwtVerify } from 'jose';

export interface LoopbackTokenKind {
  /** The door the token opens, e.g. 'tailcam-camera-link'. */
  audience: string;
  /** Who shows it, e.g. the camera process's user id. */
  subject: string;
}

/** Long enough for a clock step between two processes of one host, short enough to be useless copied. */
const TTL_SECONDS = 60;

/** A token of `kind`, good for a minute. */
export function issueLoopbackToken(
  secret: Uint8Array,
  kind: LoopbackTokenKind,
  now = new Date(),
): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ sub: kind.subject })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(kind.audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + TTL_SECONDS)
    .sign(secret);
}

/** True when `token` is a live token of `kind` signed with `secret`. */
export async function verifyLoopbackToken(
  token: string,
  secret: Uint8Array,
  kind: LoopbackTokenKind,
): Promise<boolean> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      audience: kind.audience,
    });
    return payload.sub === kind.subject;
  } catch {
    return false;
  }
}

/** The token of an `Authorization: Bearer …` header ('' when there is none). */
export function bearerToken(authorization: string | undefined): string {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1] ?? '';
}
