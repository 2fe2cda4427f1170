/**
 * The local stage behind this origin: HTTP requests under /stage/ go unchanged (prefix kept) to
 * LOCAL_STAGE_URL, so the browser needs one origin, one CSP 'self', no CORS. The signalling
 * socket (`/stage/events`) goes through the stage edge (../stage-edge/stage-edge.ts), which keeps
 * the door's limits. When the stage is down, HTTP requests answer a JSON 502/503 and the API
 * keeps serving.
 */
import fastifyHttpProxy from '@fastify/http-proxy';
import type { FastifyInstance } from 'fastify';
import type { StageProxyLimits } from '../config';
import { registerStageEdge } from '../stage-edge/stage-edge';
import { STAGE_UNREACHABLE } from '../stage-edge/stage-relay';

export { STAGE_UNREACHABLE };

export async function registerStageProxy(
  app: FastifyInstance,
  options: {
    upstream: string;
    limits: StageProxyLimits;
    publicUrl: string | undefined;
    corsOrigins: readonly string[];
  },
): Promise<void> {
  registerStageEdge(app, options);
  await app.register(fastifyHttpProxy, {
    upstream: options.upstream,
    prefix: '/stage',
    rewritePrefix: '/stage',
    // Its own two info lines per proxied request (health polls included) would add to the
    // request line every request already has (http/request-log.ts).
    disableRequestLogging: true,
    replyOptions: {
      onError(reply, { error }) {
        const status =
          'statusCode' in error && (error.statusCode === 503 || error.statusCode === 504)
            ? error.statusCode
            : 502;
        reply.log.warn({ err: error }, 'local stage proxy failed');
        void reply.code(status).send({ error: STAGE_UNREACHABLE });
      },
    },
  });
}
