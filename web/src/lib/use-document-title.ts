import { useEffect } from 'react';

/** Names the page after what it shows, so tabs, history and screen readers can tell pages apart. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title;
  }, [title]);
}
