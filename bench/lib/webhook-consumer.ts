/**
 * The webhooks part's consumer (bench/parts/webhooks.ts), a process of its own so that its work
 * is not the queue's: an HTTP server on 127.0.0.1 that verifies every delivery's signature with
 * the API's own check (webhook-signature.ts) and answers 204, or 401 to a bad one; `POST /dead`
 * answers 503 (a consumer that is down behind its proxy); `GET /counts` says what it took.
 * Started with the secret's hex as its argument; sends `{port}` over IPC once it listens; ends
 * with its parent.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../server/src/operations/webhook-signature';

const secret = Buffer.from(process.argv[2] ?? '', 'hex');
if (secret.length === 0) throw new Error('usage: webhook-consumer.ts SECRET_HEX');

const counts = { verified: 0, refused: 0, dead: 0 };
const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/counts') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts));
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (request.url === '/dead') {
      counts.dead += 1;
      response.writeHead(503).end();
      return;
    }
    const valid = verifyWebhook({
      secret,
      body: Buffer.concat(chunks).toString('utf8'),
      timestamp: header(request.headers['tailcam-timestamp']),
      signature: header(request.headers['tailcam-signature']),
      nowSeconds: Date.now() / 1000,
    });
    if (valid) counts.verified += 1;
    else counts.refused += 1;
    response.writeHead(valid ? 204 : 401).end();
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
