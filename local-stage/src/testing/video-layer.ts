/** A VP8 video layer for unit tests, its key frame requests always sent (no limiter in the way). */
import { KeyFrameRequests } from '../server/media/publisher/key-frame-requests';
import { VideoLayer } from '../server/media/publisher/video-layers';

export function testVideoLayer(rid: string): VideoLayer {
  return new VideoLayer({
    rid,
    mimeType: 'video/VP8',
    keyFrames: () =>
      new KeyFrameRequests({
        sendRequest: () => true,
        pendingMs: 250,
        minIntervalMs: 0,
        viewerIntervalMs: 1_000,
      }),
  });
}
