/**
 * `GET /api/thumbnails/{streamId}`: the aircraft's newest picture for its card on /home, to
 * signed-in viewers only (docs/product.md#thumbnails). 200 with the JPEG, or 204 when there is no
 * picture now; never cached (`private, no-store`): the browser asks
 * again every 10 s. Each account may ask `THUMBNAIL_RATE_LIMIT_PER_MINUTE` times a minute (429
 * with `Retry-After` past it), and asks for one aircraft that come while one is in flight share
 * its answer: however many ask, the picture's maker is asked once at a time.
 */
import type { FastifyInstance } from 'fastify';
import { isStreamId, type StreamId } from '@tailcam/protocol/streams';
import type { LoginTokens } from '../auth/login-token';
import { signedInViewer } from '../auth/signed-in-viewer';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import { countForAccount, type RateLimitRule, type RateLimiter } from '../http/rate-limit';
import type { Thumbnail, ThumbnailSource } from '../thumbnails/thumbnail-source';

export function registerThumbnailRoute(
  app: FastifyInstance,
  deps: {
    store: UserStore;
    loginTokens: LoginTokens;
    viewerPresent?: () => void;
    thumbnails: ThumbnailSource | undefined;
    rateLimiter: RateLimiter;
    /** Thumbnails per user. */
    rateLimit: RateLimitRule;
  },
): void {
  const source = deps.thumbnails;
  const inFlight = new Map<StreamId, Promise<Thumbnail | undefined>>();
  /** The aircraft's picture: the ask in flight for it if there is one, else a new one. */
  const latest = (streamId: StreamId): Promise<Thumbnail | undefined> => {
    if (source === undefined) return Promise.resolve(undefined);
    let asking = inFlight.get(streamId);
    if (asking === undefined) {
      asking = source.latest(streamId).finally(() => inFlight.delete(streamId));
      inFlight.set(streamId, asking);
    }
    return asking;
  };

  app.get<{ Params: { streamId: string } }>(
    '/api/thumbnails/:streamId',
    {
      onRequest: async (request, reply) => {
        // Every answer, a refusal too: a signed-in viewer's alone ('private' for caches that
        // ignore no-store on images).
        reply.header('cache-control', 'private, no-store');
        const user = await signedInViewer(request, deps);
        await countForAccount(
          deps.rateLimiter,
          deps.rateLimit,
          request,
          user.id,
          'thumbnail requests',
        );
      },
    },
    async (request, reply) => {
      const { streamId } = request.params;
      if (!isStreamId(streamId)) throw new HttpError(404, `Unknown stream: ${streamId}`);
      let thumbnail;
      try {
        thumbnail = await latest(streamId);
      } catch (error) {
        // The picture's maker is down or failing: the card keeps its placeholder.
        request.log.warn({ err: error, streamId }, 'no thumbnail: its source failed');
      }
      if (!thumbnail) return reply.code(204).send();
      return reply.type(thumbnail.contentType).send(thumbnail.body);
    },
  );
}
