/**
 * Answers that Node or Fastify would otherwise write themselves, in their own shape, without the
 * security headers, sometimes echoing what the client sent: a request Node cannot parse or that
 * does not arrive in time (the socket is all there is), and a request during shutdown. Here they
 * are `{error}` JSON with the same headers as every other answer.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

export const REQUEST_TIMED_OUT = 'Request timed out';
export const MALFORMED_REQUEST = 'Malformed request';
export const HEADERS_TOO_LARGE = 'Request headers are too large';
export const SHUTTING_DOWN = 'The server is shutting down; try again in a moment';

/** Node's clientError codes and what they are answered, by status. */
function clientErrorAnswer(code: string): { status: number; error: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, error: REQUEST_TIMED_OUT };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, error: HEADERS_TOO_LARGE };
  return { status: 400, error: MALFORMED_REQUEST };
}

/** Node's own rule: an answer may be written only while no response has begun on the socket. */
function responseBegun(socket: Socket): boolean {
  const response: unknown = Reflect.get(socket, '_httpMessage');
  return (
    typeof response === 'object' &&
    response !== null &&
    Reflect.get(response, 'headersSent') === true
  );
}

function rawAnswer(status: number, error: string, headers: Record<string, string>): string {
  const body = JSON.stringify({ error });
  const head = {
    ...headers,
    'cache-control': 'no-store',
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  const lines = Object.entries(head).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Fastify's `clientErrorHandler`: a request Node could not parse (400), headers over Node's limit
 * (431), or a request not wholly received within REQUEST_TIMEOUT_MS (408). Then the socket closes.
 */
export function createClientErrorHandler(
  headers: Record<string, string>,
  logger: FastifyBaseLogger | undefined,
): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    // The client is gone: nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, error: message } = clientErrorAnswer(error.code ?? '');
    logger?.info(
      { code: error.code, status, remoteAddress: socket.remoteAddress },
      status === 408 ? 'request timed out' : 'request refused',
    );
    if (socket.writable && !responseBegun(socket)) {
      socket.write(rawAnswer(status, message, headers));
    }
    socket.destroy();
  };
}

/**
 * Requests that arrive while the server shuts down (on a connection that was busy when it began)
 * are answered 503 and their connection closed, through the same reply path as any other answer.
 * Registered in place of Fastify's `return503OnClosing`, which writes its own body and no headers.
 */
export function registerShutdownAnswer(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    await reply.code(503).header('connection', 'close').send({ error: SHUTTING_DOWN });
  });
}
