import { useCallback, useRef, useState } from 'react';

export interface Announcement {
  id: number;
  text: string;
}

/**
 * A message for a polite live region. Each announcement gets a new id, so that the region's
 * content is new even when the words are the same as last time and a screen reader says it again.
 * `announcedAt` is when the last one was said (`performance.now()`): what the page says by itself
 * waits for it to stand a while (use-announce-when-free.ts).
 */
export function useAnnouncer(): {
  announcement: Announcement;
  announce: (text: string) => void;
  announcedAt: { readonly current: number };
} {
  const [announcement, setAnnouncement] = useState<Announcement>({ id: 0, text: '' });
  const announcedAt = useRef(-Infinity);
  const announce = useCallback((text: string) => {
    announcedAt.current = performance.now();
    setAnnouncement((previous) => ({ id: previous.id + 1, text }));
  }, []);
  return { announcement, announce, announcedAt };
}
