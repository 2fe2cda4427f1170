/**
 * Who is asking, from the `Authorization: Bearer` login token: every route that serves only
 * signed-in viewers (participant tokens, thumbnails, recordings) checks it the same way, before anything
 * else, so an anonymous caller learns nothing about the route's other rules. A viewer who passes
 * is reported present (`viewerPresent`: the local stage wakes its cameras, decision 0074).
 */
import type { FastifyRequest } from 'fastify';
import type { LoginTokens } from './login-token';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';

export interface SignedInViewer {
  id: string;
  username: string;
  tokenGeneration: number;
}

/** The viewer the request's login token names, or a 401 saying what is wrong with it. */
export async function signedInViewer(
  request: FastifyRequest,
  deps: { store: UserStore; loginTokens: LoginTokens; viewerPresent?: () => void },
): Promise<SignedInViewer> {
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
  deps.viewerPresent?.();
  return { id: user.id, username: user.username, tokenGeneration: user.tokenGeneration };
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: SignedInViewer;
  }
}
