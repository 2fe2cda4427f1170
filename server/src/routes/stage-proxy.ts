/**
 * The local stage behind this origin: HTTP and WebSocket requests under /stage/ go unchanged
 * (prefix kept) to LOCAL_STAGE_URL, so the browser needs one origin, one CSP 'self', no CORS.
 * When the stage is down, HTTP requests answer a JSON 502/503 and the API keeps serving.
 */
import fastifyHttpProxy from '@fastify/http-proxy';
import type { FastifyInstance } from 'fastify';

export const STAGE_UNREACHABLE = 'The local stage is not reachable; try again in a moment';

export async function registerStageProxy(
  app: FastifyInstance,
  options: { upstream: string },
): Promise<void> {
  await app.register(fastifyHttpProxy, {
    upstream: options.upstream,
    prefix: '/stage',
    rewritePrefix: '/stage',
    websocket: true,
    // Its own two info lines per proxied request (health polls included) would add to the
    // request line every request already has (http/request-log.ts).
    disableRequestLogging: true,
    wsHooks: {
      // When the stage cannot be reached, the proxy closes the browser's socket with the error's
      // text as the reason ('connect ECONNREFUSED 127.0.0.1:8091'). This hook runs just before
      // that close: closing first, with a reason that names nothing internal, takes its place.
      onDisconnect(_context, source) {
        if (source.readyState === source.OPEN) source.close(1011, STAGE_UNREACHABLE);
      },
    },
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
