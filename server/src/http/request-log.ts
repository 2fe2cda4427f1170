/**
 * One line per request, at `info` only where someone reading the log at the default level cares:
 * calls of the JSON API and anything refused or failed. Health polls, the web app's files, the SDK
 * and the stage's signalling are `debug`, else a terminal running `npm start` scrolls with every
 * poll and every static file. A request is logged with its query's names only: values (a token in
 * `?token=`) never reach the log.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

const HEALTH_PATHS = new Set(['/api/health', '/api/ready', '/stage/health']);

/** A name that looks like one; anything else in that place may be a value and is hidden too. */
const QUERY_NAME = /^[\w.[\]-]{1,40}$/;

/** The URL with every query value, and any query name that does not look like one, redacted. */
export function redactQuery(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const query = url.slice(mark + 1).split('#', 1)[0] ?? '';
  const names = query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const name = part.split('=', 1)[0] ?? '';
      return `${QUERY_NAME.test(name) ? name : '[redacted]'}=[redacted]`;
    });
  return `${url.slice(0, mark)}?${names.join('&')}`;
}

function isFastifyRequest(value: object): value is FastifyRequest {
  return 'raw' in value && 'routeOptions' in value;
}

/** Reads one field of a request; a request whose socket is gone (destroyed, hijacked) has none. */
function field<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * What a log record shows of a request (its `req` field): Fastify's fields with the query redacted.
 * Anything else logged as `req` is shown as it is, but for its URL's query. It never throws: it
 * runs in listeners (a response's `finish`) where a throw would end the process.
 */
export function serializeRequest(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (isFastifyRequest(value)) {
    return {
      method: field(() => value.method),
      url: field(() => redactQuery(value.url)),
      host: field(() => value.host),
      remoteAddress: field(() => value.ip),
      remotePort: field(() => value.raw.socket?.remotePort),
    };
  }
  if ('url' in value && typeof value.url === 'string') {
    return { ...value, url: redactQuery(value.url) };
  }
  return value;
}

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
