import { useEffect, useState } from 'react';
import { getPreview, type RecordedSpan } from '../api/recordings';
import { PreviewCache } from '../lib/preview-cache';

/** How long the pointer rests on a segment before its picture is fetched (a fast scrub skips). */
const PREVIEW_DELAY_MS = 80;

/**
 * The preview picture (a `blob:` URL) of `preview` in `span`, as the timeline scrubs over it;
 * undefined while it loads, for a segment without one, or when it cannot be fetched (the time
 * alone shows then). The timeline's few latest pictures stay cached (PreviewCache).
 */
export function useSegmentPreview(
  stageId: string,
  span: RecordedSpan | undefined,
  preview: string | undefined,
): string | undefined {
  // The cache, and what each of its keys names. The timeline is keyed by aircraft, so `stageId`
  // stays as first given.
  const [{ cache, wanted }] = useState(() => {
    const wanted = new Map<string, { span: RecordedSpan; preview: string }>();
    const cache = new PreviewCache((key) => {
      const picture = wanted.get(key);
      if (!picture) return Promise.reject(new Error(`no preview ${key}`));
      return getPreview(stageId, picture.span, picture.preview);
    });
    return { cache, wanted };
  });
  const [shown, setShown] = useState<{ key: string; url: string }>();
  const key = span && preview ? `${span.span}/${preview}` : undefined;

  useEffect(() => () => cache.dispose(), [cache]);

  useEffect(() => {
    if (!span || !preview || key === undefined) return;
    wanted.set(key, { span, preview });
    let current = true;
    const timer = setTimeout(() => {
      cache.get(key).then(
        (url) => current && setShown({ key, url }),
        () => undefined,
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [cache, wanted, key, span, preview]);

  return shown && shown.key === key ? shown.url : undefined;
}
