import { useEffect, useState } from 'react';
import { apiUrl } from '@/lib/api-url';
import { getAuthToken } from '@/lib/auth-token';

/** A picture is asked for again this long after the last (docs/product.md#stream-selection). */
export const THUMBNAIL_REFRESH_MS = 10_000;
/** Sooner while the stream has no picture yet: the first of a visit comes within seconds. */
export const THUMBNAIL_RETRY_MS = 3_000;

/**
 * The stream's newest picture as a `blob:` URL, fetched with the login token after the page's
 * first paint and again every 10 s while the page is open and visible; undefined while it has
 * none. An `<img>` cannot send the token, hence fetch and a blob (decision 0071). A refusal (401)
 * stops asking; any other failure keeps the last picture and asks again later.
 */
export function useLiveThumbnail(streamId: string): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    let shown: string | undefined;
    let timer: ReturnType<typeof setTimeout>;
    const abort = new AbortController();
    const show = (next?: string) => {
      if (shown) URL.revokeObjectURL(shown);
      setUrl((shown = next));
    };
    const load = async () => {
      let wait = THUMBNAIL_REFRESH_MS;
      if (!document.hidden) {
        try {
          const response = await fetch(apiUrl(`/api/thumbnails/${encodeURIComponent(streamId)}`), {
            headers: { Authorization: `Bearer ${getAuthToken()}` },
            signal: abort.signal,
          });
          if (response.status === 401) return;
          if (response.status === 200) show(URL.createObjectURL(await response.blob()));
          else if (response.status === 204) {
            show();
            wait = THUMBNAIL_RETRY_MS;
          }
        } catch {
          if (abort.signal.aborted) return;
        }
      }
      timer = setTimeout(load, wait);
    };
    timer = setTimeout(load);
    return () => {
      abort.abort();
      clearTimeout(timer);
      show();
    };
  }, [streamId]);
  return url;
}
