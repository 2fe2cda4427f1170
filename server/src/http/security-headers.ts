/**
 * Security headers on every response, and CORS closed unless CORS_ORIGINS lists origins. They are
 * set on the way out (onSend), so that whatever answers (a route, a hook, the error or 404
 * handler) they are there; the few answers that do not go through a reply take the same headers
 * (app.ts: `frameworkErrors`, http/framework-answers.ts).
 * The CSP allows what the stage SDK needs and nothing more (decision 0032): the local SDK talks
 * to this origin only; the IVS SDK also reaches *.live-video.net on port 443 (HTTPS and
 * WebSocket: stage events, WHIP, stats, device configuration) and starts a blob: worker; with
 * IVS_RECORDINGS_BUCKET, hls.js reads the recordings' segments from that bucket.
 *
 * The local stage's WHIP endpoint (`/stage/whip/...`) is the exception to CORS_ORIGINS: it is
 * open to any origin (the Bearer token is the authority and no cookie is read), and the stage
 * sets its CORS headers itself, which pass through untouched. The API adds none of its own there,
 * except on an answer of its own (a 413, 429 or 502 that never reached the stage), which gets the
 * same opening so that a publisher's page can read it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export function contentSecurityPolicy(options: {
  stageProvider: 'local' | 'ivs';
  ivsSdkUrl?: string | undefined;
  /** IVS's recordings bucket and its region: the player reads its segments there. */
  ivsRecordings?: { bucket: string; region: string } | undefined;
}): string {
  const ivs = options.stageProvider === 'ivs';
  // The presigned segment URLs of IVS's recordings (decision 0073): hls.js fetches them.
  const bucket =
    ivs && options.ivsRecordings
      ? [`https://${options.ivsRecordings.bucket}.s3.${options.ivsRecordings.region}.amazonaws.com`]
      : [];
  const scriptSources = ["'self'"];
  if (ivs && options.ivsSdkUrl !== undefined) scriptSources.push(new URL(options.ivsSdkUrl).origin);
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': scriptSources,
    'style-src': ["'self'"],
    // blob: for the thumbnails, fetched with the login token (decision 0071).
    'img-src': ["'self'", 'data:', 'blob:'],
    'connect-src': ivs
      ? ["'self'", 'https://*.live-video.net', 'wss://*.live-video.net', ...bucket]
      : ["'self'"],
    'media-src': ["'self'", 'blob:', ...bucket],
    'worker-src': ivs ? ["'self'", 'blob:'] : ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'frame-ancestors': ["'none'"],
    'form-action': ["'self'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/** Where the local stage's WHIP endpoint is reached through this origin. */
export const WHIP_PREFIX = '/stage/whip';
/** Where the local stage's WHEP endpoint (players) is: the same door as WHIP's. */
export const WHEP_PREFIX = '/stage/whep';

/**
 * Whether the request was routed to the WHIP or WHEP endpoint (by its route, so an encoded path
 * counts).
 */
export function isWhipOrWhepRequest(request: FastifyRequest): boolean {
  // A request that failed before routing (a URL that does not decode) has no route options.
  const route = (request.routeOptions as FastifyRequest['routeOptions'] | undefined)?.url;
  return [WHIP_PREFIX, WHEP_PREFIX].some(
    (prefix) => route === prefix || route?.startsWith(`${prefix}/`) === true,
  );
}

/** The stage's opening, on the API's own answers under /stage/whip/ and /stage/whep/ (see above). */
const WHIP_OWN_ANSWER_CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Retry-After',
};

export interface SecurityHeaders {
  /** The headers of every answer, for one written to a socket with no request to go by. */
  fixed: Record<string, string>;
  /** Sets every header this request's answer carries: the fixed ones, its id, caching, CORS. */
  apply(request: FastifyRequest, reply: FastifyReply): void;
  /** Whether CORS_ORIGINS lists this origin. */
  allowsOrigin(origin: string | undefined): boolean;
}

export function createSecurityHeaders(options: {
  csp: string;
  corsOrigins: readonly string[];
}): SecurityHeaders {
  const fixed = {
    'content-security-policy': options.csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  };
  const allowed = new Set(options.corsOrigins);
  const allowsOrigin = (origin: string | undefined) => origin !== undefined && allowed.has(origin);
  return {
    fixed,
    allowsOrigin,
    apply(request, reply) {
      reply.headers(fixed);
      reply.header('x-request-id', request.id);
      // API answers carry tokens and account state: no browser or proxy may keep a copy. A route
      // that says otherwise (a recording's segment: `private`) has said so on purpose.
      if (request.url.startsWith('/api/') && !reply.hasHeader('cache-control')) {
        reply.header('cache-control', 'no-store');
      }
      if (isWhipOrWhepRequest(request)) {
        if (!reply.hasHeader('access-control-allow-origin')) reply.headers(WHIP_OWN_ANSWER_CORS);
        return;
      }
      if (allowed.size === 0) return;
      reply.header('vary', 'Origin');
      if (allowsOrigin(request.headers.origin)) {
        reply.header('access-control-allow-origin', request.headers.origin);
      }
    },
  };
}

export function registerSecurityHeaders(app: FastifyInstance, headers: SecurityHeaders): void {
  app.addHook('onSend', async (request, reply, payload) => {
    headers.apply(request, reply);
    return payload;
  });

  app.addHook('onRequest', async (request, reply) => {
    const preflight =
      request.method === 'OPTIONS' && request.headers['access-control-request-method'];
    if (
      !preflight ||
      isWhipOrWhepRequest(request) ||
      !headers.allowsOrigin(request.headers.origin)
    ) {
      return;
    }
    await reply
      .code(204)
      .headers({
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'Content-Type, Authorization',
        'access-control-max-age': '600',
      })
      .send();
  });
}
