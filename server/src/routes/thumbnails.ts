/**
 * `GET /api/thumbnails/{streamId}`: the aircraft's newest picture for its card on /home, to
 * signed-in viewers only (docs/product.md#thumbnails). 200 with the JPEG, or 204 when there is no
 * picture now; never cached (`private, no-store`): the browser asks
 * again every 10 s.
 */
import type { FastifyInstance } from 'fastify';
import { isStreamId } from '@tailcam/protocol/streams';
import type { LoginTokens } from '../auth/login-token';
import { signedInViewer } from '../auth/signed-in-viewer';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import type { ThumbnailSource } from '../thumbnails/thumbnail-source';

export function registerThumbnailRoute(
  app: FastifyInstance,
  deps: {
    store: UserStore;
    loginTokens: LoginTokens;
    viewerPresent?: () => void;
    thumbnails: ThumbnailSource | undefined;
  },
): void {
  app.get<{ Params: { streamId: string } }>(
    '/api/thumbnails/:streamId',
    {
      onRequest: async (request, reply) => {
        // Every answer, a refusal too: a signed-in viewer's alone ('private' for caches that
        // ignore no-store on images).
        reply.header('cache-control', 'private, no-store');
        await signedInViewer(request, deps);
      },
    },
    async (request, reply) => {
      const { streamId } = request.params;
      if (!isStreamId(streamId)) throw new HttpError(404, `Unknown stream: ${streamId}`);
      let thumbnail;
      try {
        thumbnail = await deps.thumbnails?.latest(streamId);
      } catch (error) {
        // The picture's maker is down or failing: the card keeps its placeholder.
        request.log.warn({ err: error, streamId }, 'no thumbnail: its source failed');
      }
      if (!thumbnail) return reply.code(204).send();
      return reply.type(thumbnail.contentType).send(thumbnail.body);
    },
  );
}
