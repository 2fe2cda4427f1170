/**
 * The built web app (web/dist): hashed files under /assets/ are cached for a year; index.html and
 * the other files are revalidated on every load; each is sent in the compressed form the browser
 * takes, if the build made one. The SPA's routes (/, /home, /watch-all, /recordings,
 * /recordings/* (a moment's link), /operations, /player/*) answer
 * index.html; until the app is built they answer a clear 503 (checked per request, so a build
 * made while the server runs is picked up). Source maps are never served, even if a build left
 * one: each holds the whole source of what it maps.
 */
import { access } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export const SPA_ROUTES = [
  '/',
  '/home',
  '/watch-all',
  '/recordings',
  '/recordings/*',
  '/operations',
  '/player/*',
] as const;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Whether a path under web/dist may be served (it is checked decoded and normalised). */
function servable(path: string): boolean {
  return !/\.map$/i.test(path);
}

export async function registerWebApp(
  app: FastifyInstance,
  options: { webDistDir: string; repoRoot: string },
): Promise<void> {
  const { webDistDir } = options;
  const indexFile = join(webDistDir, 'index.html');
  const shownIndex = relative(options.repoRoot, indexFile) || indexFile;
  const assetsDir = join(webDistDir, 'assets') + sep;

  await app.register(fastifyStatic, {
    root: webDistDir,
    prefix: '/',
    index: false,
    wildcard: true,
    cacheControl: false,
    allowedPath: servable,
    // The build's brotli and gzip forms (web/scripts/precompress.ts), to a browser that takes
    // them: a visit's files at a third of their bytes (docs/decisions/0104-the-web-app-compressed.md).
    preCompressed: true,
    // A missing web/dist is reported per request below, not as a warning at start.
    suppressWarning: true,
    setHeaders(reply, path) {
      reply.header('cache-control', path.startsWith(assetsDir) ? IMMUTABLE : 'no-cache');
    },
  });

  for (const url of SPA_ROUTES) {
    app.get(url, async (_request, reply) => {
      try {
        await access(indexFile);
      } catch {
        return reply
          .code(503)
          .header('cache-control', 'no-store')
          .type('text/plain; charset=utf-8')
          .send(
            `Tailcam's web app is not built: ${shownIndex} is missing. Run \`npm run build\` (npm start builds it too), then reload.\n`,
          );
      }
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    });
  }
}
