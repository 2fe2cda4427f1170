import { useCallback, useEffect, useRef, useState } from 'react';

export interface Announcement {
  id: number;
  text: string;
}

/**
 * How long a message stands in the region before one the page says by itself may take its
 * place: the viewer's own action's message is not replaced within a moment by, say, the flight
 * data's change of phase, before a screen reader has read it (docs/product.md#flight-data).
 */
export const ANNOUNCEMENT_HOLD_MS = 1_000;

/**
 * A message for a polite live region. Each announcement gets a new id, so that the region's
 * content is new even when the words are the same as last time and a screen reader says it again.
 * `announce` says what the viewer's own action did, at once; `announceWhenFree` what the page says
 * by itself, once the message there has stood `ANNOUNCEMENT_HOLD_MS` (the newest such waits; an
 * older one waiting is dropped).
 */
export function useAnnouncer(): {
  announcement: Announcement;
  announce: (text: string) => void;
  announceWhenFree: (text: string) => void;
} {
  const [announcement, setAnnouncement] = useState<Announcement>({ id: 0, text: '' });
  const shownAt = useRef(-Infinity);
  const waiting = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const announce = useCallback((text: string) => {
    shownAt.current = performance.now();
    setAnnouncement((previous) => ({ id: previous.id + 1, text }));
  }, []);
  const announceWhenFree = useCallback(
    (text: string) => {
      // Looked at again when due: the viewer's own message may have come meanwhile.
      const attempt = () => {
        clearTimeout(waiting.current);
        const standing = performance.now() - shownAt.current;
        if (standing >= ANNOUNCEMENT_HOLD_MS) announce(text);
        else waiting.current = setTimeout(attempt, ANNOUNCEMENT_HOLD_MS - standing);
      };
      attempt();
    },
    [announce],
  );
  useEffect(() => () => clearTimeout(waiting.current), []);
  return { announcement, announce, announceWhenFree };
}
