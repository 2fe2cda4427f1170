/** The API's side of raw-socket tests: listening on a port; the exchange itself is shared. */
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';

export { rawExchange, type RawSocketAnswer } from '@tailcam/protocol/testing/raw-exchange';

/** The port of an app listening on loopback (closed with the app). */
export async function listenOnLoopback(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  return address.port;
}

/** A loopback port with nothing listening on it (taken, then released): a refused connection. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  return address.port;
}
