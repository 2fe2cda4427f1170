/**
 * A recorded segment's flight data (`{offsetMs}.flight`, decision 0096; its records:
 * docs/flight-data.md#in-the-recordings), sent as it is now: the recorder appends to it while its
 * segment is written, so it is never cached. The caller has checked every part of its path.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyReply } from 'fastify';
import { HttpError } from '../http/errors';

export async function sendFlightData(
  root: string | undefined,
  /** `{STAGE}/{SPAN}/{offsetMs}.flight`, each part checked. */
  relativePath: string,
  reply: FastifyReply,
) {
  if (root === undefined) throw new HttpError(404, 'No flight data (no local recordings)');
  const path = join(root, relativePath);
  const found = await stat(path).catch(() => undefined);
  if (!found?.isFile()) {
    throw new HttpError(404, 'No flight data for this segment (none was sent, or it expired)');
  }
  reply.header('cache-control', 'private, no-store');
  reply.header('content-type', 'application/octet-stream');
  reply.header('content-length', String(found.size));
  // The bytes there now: what is appended meanwhile waits for the next read.
  return reply.send(createReadStream(path, { start: 0, end: Math.max(0, found.size - 1) }));
}
