/**
 * The built web app (web/dist): hashed files under /assets/ are cached for a year; index.html and
 * the other files are revalidated on every load. The SPA's routes (/, /home, /player/*) answer
 * index.html. Without a build, those routes answer a clear 503 instead.
 */
import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const SPA_ROUTES = ['/', '/home', '/player/*'] as const;
const IMMUTABLE = 'public, max-age=31536000, immutable';

export async function registerWebApp(
  app: FastifyInstance,
  options: { webDistDir: string; repoRoot: string },
): Promise<void> {
  const { webDistDir } = options;
  const indexFile = join(webDistDir, 'index.html');

  if (!existsSync(indexFile)) {
    const shown = relative(options.repoRoot, indexFile) || indexFile;
    const notBuilt = (_request: unknown, reply: FastifyReply) =>
      reply
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(
          `Tailcam's web app is not built: ${shown} is missing. Run \`npm run build\` (npm start builds it too), then reload.\n`,
        );
    for (const url of [...SPA_ROUTES, '/assets/*']) app.get(url, notBuilt);
    return;
  }

  const assetsDir = join(webDistDir, 'assets') + sep;
  await app.register(fastifyStatic, {
    root: webDistDir,
    prefix: '/',
    index: false,
    wildcard: true,
    cacheControl: false,
    setHeaders(reply, path) {
      reply.header('cache-control', path.startsWith(assetsDir) ? IMMUTABLE : 'no-cache');
    },
  });
  for (const url of SPA_ROUTES) {
    app.get(url, (_request, reply) =>
      reply.header('cache-control', 'no-cache').sendFile('index.html'),
    );
  }
}
