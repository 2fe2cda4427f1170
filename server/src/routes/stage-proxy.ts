/**
 * The local stage behind this origin, so the browser needs one origin, one CSP 'self', no CORS:
 * `GET`/`HEAD /stage/health` and the WHIP and WHEP doors go unchanged (prefix kept) to
 * LOCAL_STAGE_URL; every other path under /stage/ is the API's 404. The signalling
 * socket (`/stage/events`) goes through the stage edge (../stage-edge/stage-edge.ts), which keeps
 * the door's limits. When the stage is down, HTTP requests answer a JSON 502/503 and the API
 * keeps serving.
 *
 * The stage's WHIP endpoint (`/stage/whip/...`, docs/product.md#whip) has a door of its own: its
 * bodies are SDP, passed raw whatever their type (the stage judges the type) and refused over
 * 64 KiB before a byte reaches the stage; offers and trickle PATCHes are rate-limited per address
 * here, since the stage sees only this server's address; and its answers keep the stage's own headers
 * (`Location`, `ETag`, `Link`, `WWW-Authenticate`, its CORS), CORS_ORIGINS not applying there
 * (http/security-headers.ts).
 */
import { PassThrough } from 'node:stream';
import fastifyHttpProxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import type { FastifyInstance } from 'fastify';
import type { StageProxyLimits } from '../config';
import { HttpError } from '../http/errors';
import type { RateLimitRule, RateLimiter } from '../http/rate-limit';
import { WHEP_PREFIX, WHIP_PREFIX } from '../http/security-headers';
import { addressKey } from '../stage-edge/socket-seats';
import { registerStageEdge } from '../stage-edge/stage-edge';
import { STAGE_UNREACHABLE } from '../stage-edge/stage-relay';

export { STAGE_UNREACHABLE };

/** The one path outside WHIP and WHEP that is passed to the stage, for GET and HEAD only. */
export const STAGE_HEALTH_PATH = '/stage/health';

/** As the stage's own limit: an SDP offer is a few kilobytes. */
export const MAX_WHIP_BODY_BYTES = 64 * 1024;

/** While the stage is down: our JSON 502 (503/504 kept), never the proxy's own text. */
const answerUnreachable: NonNullable<FastifyHttpProxyOptions['replyOptions']>['onError'] = (
  reply,
  { error },
) => {
  const status =
    'statusCode' in error && (error.statusCode === 503 || error.statusCode === 504)
      ? error.statusCode
      : 502;
  reply.log.warn({ err: error }, 'local stage proxy failed');
  void reply.code(status).send({ error: STAGE_UNREACHABLE });
};

export async function registerStageProxy(
  app: FastifyInstance,
  options: {
    upstream: string;
    limits: StageProxyLimits;
    publicUrl: string | undefined;
    corsOrigins: readonly string[];
    rateLimiter: RateLimiter;
    /** WHIP offers (POSTs under /stage/whip/) per address. */
    whipRateLimit: RateLimitRule;
    /** WHEP offers (POSTs under /stage/whep/) per address. */
    whepRateLimit: RateLimitRule;
    /** Trickle PATCHes under either door per address. */
    trickleRateLimit: RateLimitRule;
  },
): Promise<void> {
  registerStageEdge(app, options);
  // Outside WHIP, WHEP and the socket, the browser needs the stage's health and nothing else: no
  // other path or method is passed on, so nothing else a page sends reaches the stage (decision
  // 0052).
  await app.register(fastifyHttpProxy, {
    upstream: options.upstream,
    prefix: STAGE_HEALTH_PATH,
    rewritePrefix: STAGE_HEALTH_PATH,
    routes: [''],
    httpMethods: ['GET', 'HEAD'],
    // Its own two info lines per proxied request (health polls included) would add to the
    // request line every request already has (http/request-log.ts).
    disableRequestLogging: true,
    replyOptions: { onError: answerUnreachable },
  });
  for (const door of [
    { prefix: WHIP_PREFIX, rule: options.whipRateLimit, what: 'WHIP' },
    { prefix: WHEP_PREFIX, rule: options.whepRateLimit, what: 'WHEP' },
  ]) {
    await app.register(async (scope) => {
      // Every body buffered raw up to the limit, whatever its type: the API's JSON parser never
      // touches it, and one over the limit is a 413 here, not a stream into the stage.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser(
        '*',
        { parseAs: 'buffer', bodyLimit: MAX_WHIP_BODY_BYTES },
        (_request, body, done) => {
          const raw = new PassThrough();
          raw.end(body);
          done(null, raw);
        },
      );
      scope.addHook('onRequest', async (request) => {
        // An OPTIONS with a token gets TURN credentials from the stage (decision 0063), so it
        // counts as an offer; a browser's CORS preflight never carries one and passes uncounted.
        const handsOutCredentials =
          request.method === 'OPTIONS' && request.headers.authorization !== undefined;
        const limited =
          request.method === 'POST' || handsOutCredentials
            ? { rule: door.rule, what: `${door.what} offers` }
            : request.method === 'PATCH'
              ? { rule: options.trickleRateLimit, what: 'ICE candidate updates' }
              : undefined;
        if (limited === undefined) return;
        const verdict = await options.rateLimiter.check(limited.rule, addressKey(request.ip));
        if (verdict.allowed) return;
        request.log.warn({ rule: limited.rule.name }, `${door.what} rate limit reached`);
        throw new HttpError(
          429,
          `Too many ${limited.what} from this address; try again in ${verdict.retryAfterSeconds} seconds`,
          { 'retry-after': String(verdict.retryAfterSeconds) },
        );
      });
      await scope.register(fastifyHttpProxy, {
        upstream: options.upstream,
        prefix: door.prefix,
        rewritePrefix: door.prefix,
        proxyPayloads: false,
        disableRequestLogging: true,
        replyOptions: { onError: answerUnreachable },
      });
    });
  }
}
