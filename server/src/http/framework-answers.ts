/**
 * Answers that Node or Fastify would otherwise write themselves, in their own shape, without the
 * security headers, sometimes echoing what the client sent: a request Node cannot parse or that
 * does not arrive in time (the socket is all there is), and a request during shutdown. Here they
 * are `{error}` JSON with the same headers as every other answer.
 */
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { answerClientError } from '@tailcam/protocol/node-http-answers';

export const SHUTTING_DOWN = 'The server is shutting down; try again in a moment';

/**
 * Fastify's `clientErrorHandler`: a request Node could not parse (400), headers over Node's limit
 * (431), or a request not wholly received within REQUEST_TIMEOUT_MS (408). Then the socket closes.
 */
export function createClientErrorHandler(
  headers: Record<string, string>,
  logger: FastifyBaseLogger | undefined,
): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    // Read before the socket closes: a closed one has no address.
    const remoteAddress = socket.remoteAddress;
    const status = answerClientError(error, socket, headers);
    // The client is gone: nobody was answered.
    if (status === undefined) return;
    logger?.info(
      { code: error.code, status, remoteAddress },
      status === 408 ? 'request timed out' : 'request refused',
    );
  };
}

/**
 * Requests that arrive while the server shuts down (on a connection that was busy when it began)
 * are answered 503 and their connection closed, through the same reply path as any other answer.
 * Registered in place of Fastify's `return503OnClosing`, which writes its own body and no headers.
 * A request already in hand when the shutdown began is answered as usual, on a connection that
 * then closes: the server's close waits for every connection, and a kept-alive one (a health
 * check's, a proxied request's) would hold it until the client lets go (under `npm start`, 5 s,
 * then a SIGKILL).
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
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}
