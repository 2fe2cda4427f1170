import type { MouseEvent } from 'react';

/**
 * Whether a click on a router link opens its page here: a plain primary click (Enter on a link
 * is one too). A modifier or another button opens a new tab or window, which joins on its own.
 */
export function opensInThisPage(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;
}
