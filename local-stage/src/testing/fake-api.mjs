// A stand-in for the API server in tests of scripts/start.mjs: answers /api/health, proxies
// /stage/ (HTTP and WebSocket upgrades) to LOCAL_STAGE_URL, reports over IPC as the API does,
// and gives the stage an (empty) table of token generations whenever it has none, as the API's
// TokenGenerationSync does (decision 0058).
import http from 'node:http';
import net from 'node:net';
import { SignJWT } from 'jose';

// As the API does when its configuration is wrong.
if (process.env.FAKE_API_EXIT_CODE) process.exit(Number(process.env.FAKE_API_EXIT_CODE));

process.send?.({
  type: 'configured',
  stageProvider: process.env.STAGE_PROVIDER === 'ivs' ? 'ivs' : 'local',
});

const stage = new URL(process.env.LOCAL_STAGE_URL ?? 'http://127.0.0.1:8091');
const server = http.createServer((request, response) => {
  if (request.url === '/api/health') return void response.end('{"status":"ok"}');
  if (!request.url?.startsWith('/stage/')) {
    response.writeHead(404);
    return void response.end();
  }
  const upstream = http.request(
    {
      host: stage.hostname,
      port: stage.port,
      path: request.url,
      method: request.method,
      headers: request.headers,
    },
    (reply) => {
      response.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(response);
    },
  );
  upstream.on('error', () => {
    response.writeHead(502);
    response.end();
  });
  request.pipe(upstream);
});
server.on('upgrade', (request, socket, head) => {
  const upstream = net.connect(Number(stage.port), stage.hostname, () => {
    const headers = Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`);
    upstream.write(`${request.method} ${request.url} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
    upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  for (const [a, b] of [
    [upstream, socket],
    [socket, upstream],
  ]) {
    a.on('error', () => b.destroy());
    a.on('close', () => b.destroy());
  }
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.send?.({ type: 'listening', url: `http://127.0.0.1:${port}` });
  if (process.env.FAKE_DEMO_VIEWER) {
    process.send?.({
      type: 'demo-viewer',
      username: 'demo',
      password: process.env.FAKE_DEMO_VIEWER,
    });
  }
});
const generations = `${stage.origin}/_control/token-generations`;
/**
 * The control routes take the API's token (decision 0082): the one
 * @tailcam/protocol/stage-control issues, signed here with jose as this plain .mjs cannot import
 * TypeScript.
 */
const controlToken = () =>
  new SignJWT({ sub: 'tailcam-api' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience('tailcam-stage-control')
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(new TextEncoder().encode(process.env.STAGE_TOKEN_SECRET ?? ''));
setInterval(async () => {
  try {
    const authorization = `Bearer ${await controlToken()}`;
    const state = await (await fetch(generations, { headers: { authorization } })).json();
    if (state.loaded === false) {
      await fetch(generations, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({ generations: {} }),
      });
    }
  } catch {
    // The stage is not up yet: asked again at the next tick.
  }
}, 100).unref();
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
