/**
 * One line per request, at `info` only where someone reading the log at the default level cares:
 * calls of the JSON API and anything refused or failed. Health polls, the web app's files, the SDK
 * and the stage's signalling are `debug`, else a terminal running `npm start` scrolls with every
 * poll and every static file.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

const HEALTH_PATHS = new Set(['/api/health', '/api/ready', '/stage/health']);

/** Whether a request's line belongs at `info` (else `debug`). */
export function isNotableRequest(url: string, statusCode: number): boolean {
  if (statusCode >= 400) return true;
  const path = url.split('?', 1)[0] ?? '';
  return path.startsWith('/api/') && !HEALTH_PATHS.has(path);
}

export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) {
      reply.log.error({ ...fields, err: error }, 'request errored');
    } else if (isNotableRequest(request.url, reply.statusCode)) {
      reply.log.info(fields, 'request completed');
    } else {
      reply.log.debug(fields, 'request completed');
    }
  }
}
