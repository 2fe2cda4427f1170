/**
 * The signed-in user behind a request's `Authorization: Bearer` login token, or a 401 saying what
 * is wrong: the one check of every route for signed-in users (a participant token, recordings).
 */
import type { LoginTokens } from './login-token';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';

export interface SignedInUser {
  id: string;
  username: string;
  tokenGeneration: number;
}

export async function authenticatedUser(
  header: string | undefined,
  deps: { store: UserStore; loginTokens: LoginTokens },
): Promise<SignedInUser> {
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
  return { id: user.id, username: user.username, tokenGeneration: user.tokenGeneration };
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: SignedInUser;
  }
}
