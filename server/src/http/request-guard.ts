/**
 * The door's two rules, before any route runs:
 *
 * - A path is taken as it is written. One with a dot segment, a doubled slash, or an encoded dot,
 *   slash or backslash is answered 400: the router does not normalise it, but what it is proxied
 *   to may, so a spelling such as `/stage/./whep/N743AS` could reach the stage's WHEP endpoint
 *   past the rate limit of its route (decision 0052). No page of ours, nor any WHIP or WHEP
 *   client, writes such a path.
 * - A cross-site request that is not a GET or HEAD is answered 403 unless its Origin is in
 *   CORS_ORIGINS: a page on any website can send a POST with `fetch(..., {mode: 'no-cors'})`, and
 *   no such request is one of ours. WHIP and WHEP are the exception: they are cross-origin by
 *   standard (RFC 9725), and their Bearer token is the authority. `Sec-Fetch-Site` is sent by
 *   every current browser and never by a page's script; a client that is not a browser sends
 *   none and is judged by its credentials alone.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors';
import { isWhipOrWhepRequest, type SecurityHeaders } from './security-headers';

export const MALFORMED_URL = 'Malformed URL';
export const CROSS_SITE_REFUSED = 'Cross-site request refused';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** A dot segment, a doubled slash, an encoded dot, slash or backslash, or a backslash. */
const ODD_PATH = /(?:^|\/)\.{1,2}(?:\/|$)|\/\/|%2e|%2f|%5c|\\/i;

export function hasOddPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return ODD_PATH.test(path);
}

function isRefusedCrossSite(request: FastifyRequest, headers: SecurityHeaders): boolean {
  if (SAFE_METHODS.has(request.method)) return false;
  if (request.headers['sec-fetch-site'] !== 'cross-site') return false;
  if (isWhipOrWhepRequest(request)) return false;
  return !headers.allowsOrigin(request.headers.origin);
}

export function registerRequestGuard(app: FastifyInstance, headers: SecurityHeaders): void {
  app.addHook('onRequest', async (request) => {
    if (hasOddPath(request.raw.url ?? '')) {
      request.log.info({ reason: 'odd-path' }, 'request refused');
      throw new HttpError(400, MALFORMED_URL);
    }
    if (isRefusedCrossSite(request, headers)) {
      request.log.info({ reason: 'cross-site' }, 'request refused');
      throw new HttpError(403, CROSS_SITE_REFUSED);
    }
  });
}
