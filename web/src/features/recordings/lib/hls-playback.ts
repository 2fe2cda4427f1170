/**
 * An IVS recording's HLS played with hls.js (decision 0073, amendment "IVS"), for the Recordings
 * page's player and the live player's rewind (decision 0088, "Amazon IVS") alike. hls.js's light
 * build is imported only here, dynamically: its own chunk, fetched only to play an IVS span. The
 * playlists are the API's (the login token goes with them, never with S3's requests); the
 * segments are presigned S3 URLs that expire after minutes, so a fatal network error loads the
 * playlist again (signed afresh) and goes on from where it was.
 */
import { apiUrl } from '@/lib/api-url';
import { getAuthToken } from '@/lib/auth-token';

/** Fatal network errors in a row after which the player gives up (each reloads the playlist). */
const HLS_RELOADS = 3;

export interface HlsPlayOptions {
  /**
   * Where to start, in seconds of the recording's media time; its beginning when not given. Given
   * to hls.js as its start: a recording still being written is a live playlist, which hls.js
   * would otherwise start three segments before its end.
   */
  startS?: number;
}

/**
 * Plays the playlist at `path` (an API path) on `video`; `onFailed` when it cannot. Returns the
 * stop.
 */
export function playHls(
  video: HTMLVideoElement,
  path: `/api/${string}`,
  onFailed: () => void,
  { startS }: HlsPlayOptions = {},
): () => void {
  let stopped = false;
  let stop = () => {};
  const src = apiUrl(path);
  const apiOrigin = new URL(src, window.location.href).origin;
  import('hls.js/light')
    .then(({ default: Hls }) => {
      if (stopped) return;
      if (!Hls.isSupported()) return onFailed();
      const hls = new Hls({
        startPosition: startS ?? 0,
        xhrSetup(xhr, url) {
          if (new URL(url, window.location.href).origin !== apiOrigin) return;
          xhr.open('GET', url, true);
          xhr.setRequestHeader('Authorization', `Bearer ${getAuthToken() ?? ''}`);
        },
      });
      stop = () => hls.destroy();
      let reloads = 0;
      hls.on(Hls.Events.FRAG_LOADED, () => (reloads = 0));
      hls.on(Hls.Events.ERROR, (_event, data) => {
        if (!data.fatal) return;
        if (data.type === Hls.ErrorTypes.NETWORK_ERROR && reloads < HLS_RELOADS) {
          reloads += 1;
          const at = video.currentTime;
          // hls.js starts the reloaded playlist at its configured start: here, not the first one.
          hls.config.startPosition = at;
          hls.once(Hls.Events.MANIFEST_PARSED, () => (video.currentTime = at));
          hls.loadSource(src);
          return;
        }
        onFailed();
      });
      hls.loadSource(src);
      hls.attachMedia(video);
    })
    .catch(() => {
      if (!stopped) onFailed();
    });
  return () => {
    stopped = true;
    stop();
  };
}
