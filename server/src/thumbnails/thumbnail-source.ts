/**
 * Where the API gets an aircraft's newest picture (docs/decisions/0070-thumbnails.md): from the
 * local stage's thumbnail process, or from IVS participant recording's LATEST thumbnail on S3.
 * Either answers undefined when it has no picture now (nothing on air, the maker not running):
 * the card shows its placeholder, and no viewer waits on it for long.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { StreamId } from '@tailcam/protocol/streams';
import {
  THUMBNAIL_ANSWER_TIMEOUT_MS,
  THUMBNAILS_SOCKET_FILE,
  thumbnailPath,
} from '@tailcam/protocol/thumbnails';

export interface Thumbnail {
  body: Buffer;
  contentType: 'image/jpeg';
}

export interface ThumbnailSource {
  latest(stageId: StreamId): Promise<Thumbnail | undefined>;
}

const MAX_PICTURE_BYTES = 2 * 1024 * 1024;

/**
 * The local thumbnail process, on its socket in DATA_DIR. Throws when it cannot be reached (the
 * route logs that and answers "no picture").
 */
export function localThumbnails(dataDir: string): ThumbnailSource {
  const socketPath = join(dataDir, THUMBNAILS_SOCKET_FILE);
  return {
    latest: (stageId) =>
      new Promise((resolve, reject) => {
        const request = httpRequest(
          { socketPath, path: thumbnailPath(stageId), timeout: THUMBNAIL_ANSWER_TIMEOUT_MS },
          (response) => {
            const chunks: Buffer[] = [];
            let size = 0;
            response.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > MAX_PICTURE_BYTES) request.destroy(new Error('picture too large'));
              else chunks.push(chunk);
            });
            response.on('error', reject);
            response.on('end', () => {
              if (response.statusCode === 200 && size > 0) {
                resolve({ body: Buffer.concat(chunks), contentType: 'image/jpeg' });
              } else if (response.statusCode === 204) resolve(undefined);
              else reject(new Error(`the thumbnail process answered ${response.statusCode}`));
            });
          },
        );
        request.on('timeout', () => request.destroy(new Error('the thumbnail process timed out')));
        request.on('error', reject);
        request.end();
      }),
  };
}
