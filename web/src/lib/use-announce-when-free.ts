import { useCallback, useEffect, useRef } from 'react';

/**
 * How long a message stands in a polite region (use-announcer.ts) before one the page says by
 * itself may take its place: the viewer's own action's message is not replaced within a moment by a change
 * of flight phase, before a screen reader has read it (docs/product.md#flight-data).
 */
export const ANNOUNCEMENT_HOLD_MS = 1_000;

/**
 * `(text) => void` that says `text` with `announce` once the region's last message (said at
 * `announcedAt`, `performance.now()`) has stood `ANNOUNCEMENT_HOLD_MS`: at once if it has. Of the
 * messages that wait, only the newest is said. The viewer's own messages go through `announce`
 * itself, at once.
 */
export function useAnnounceWhenFree(
  announce: (text: string) => void,
  announcedAt: { readonly current: number },
): (text: string) => void {
  const waiting = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(waiting.current), []);
  return useCallback(
    (text: string) => {
      // Looked at again when due: the viewer's own message may have come meanwhile.
      const attempt = () => {
        clearTimeout(waiting.current);
        const standing = performance.now() - announcedAt.current;
        if (standing >= ANNOUNCEMENT_HOLD_MS) announce(text);
        else waiting.current = setTimeout(attempt, ANNOUNCEMENT_HOLD_MS - standing);
      };
      attempt();
    },
    [announce, announcedAt],
  );
}
