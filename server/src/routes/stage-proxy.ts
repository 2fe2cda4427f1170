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
