/**
 * The thumbnail process's answers to the API, on a Unix socket in DATA_DIR (only this machine's
 * processes that may read DATA_DIR reach it; no port to configure):
 *   GET /thumbnails/{stageId}  200 image/jpeg, the aircraft's picture; 204 when it has none now;
 *                              404 for an aircraft the stage does not serve
 *   GET /stats                 what it watches and has decoded, and its CPU (the bench reads it)
 * Anything else is 404. The API checks the viewer's login token; this socket checks nothing.
 */
import { createServer, type Server } from 'node:http';
import { mkdir, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StageLogger } from '../stage-log';
import { UnknownAircraftError, type ThumbnailService } from './thumbnail-service';

const THUMBNAIL_PATH = /^\/thumbnails\/([A-Za-z0-9_-]{1,64})$/;
/** Read and write for the owner only (0600), whatever the process's own umask. */
export const SOCKET_UMASK = 0o177;

export async function listenOnSocket(
  service: ThumbnailService,
  socketPath: string,
  log: StageLogger,
): Promise<Server> {
  const server = createServer((request, response) => {
    const match = THUMBNAIL_PATH.exec(request.url ?? '');
    if (request.method === 'GET' && request.url === '/stats') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(service.stats()));
      return;
    }
    if (request.method !== 'GET' || !match?.[1]) {
      response.writeHead(404).end();
      return;
    }
    service.thumbnail(match[1]).then(
      (jpeg) => {
        if (!jpeg) return void response.writeHead(204).end();
        response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': jpeg.length });
        response.end(jpeg);
      },
      (error: unknown) => {
        if (!(error instanceof UnknownAircraftError)) log.error({ err: error }, 'thumbnails');
        response.writeHead(error instanceof UnknownAircraftError ? 404 : 500).end();
      },
    );
  });
  // DATA_DIR may not be there yet (the API makes it too); a socket file left by a process that
  // died is in the way, and nothing else makes one there.
  await mkdir(dirname(socketPath), { recursive: true, mode: 0o700 });
  await unlink(socketPath).catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // The socket file is made by bind(), inside listen() and before it returns, with the mode
    // the umask leaves: under 0o177 it is 0600 from its first instant. A chmod afterwards left
    // it open to every local user for as long as the chmod took.
    const umask = process.umask(SOCKET_UMASK);
    try {
      server.listen(socketPath, () => resolve());
    } finally {
      process.umask(umask);
    }
  });
  return server;
}
