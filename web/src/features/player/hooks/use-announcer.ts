import { useCallback, useState } from 'react';

export interface Announcement {
  id: number;
  text: string;
}

/**
 * A message for a polite live region. Each announcement gets a new id, so that the region's
 * content is new even when the words are the same as last time and a screen reader says it again.
 */
export function useAnnouncer(): {
  announcement: Announcement;
  announce: (text: string) => void;
} {
  const [announcement, setAnnouncement] = useState<Announcement>({ id: 0, text: '' });
  const announce = useCallback(
    (text: string) => setAnnouncement((previous) => ({ id: previous.id + 1, text })),
    [],
  );
  return { announcement, announce };
}
