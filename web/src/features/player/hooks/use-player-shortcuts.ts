import { useEffect, useRef } from 'react';
import { isTextField } from '@/lib/is-text-field';

export type ShortcutKey = 'f' | 'p' | 'i' | '?';

const SHORTCUT_KEYS: readonly string[] = ['f', 'p', 'i', '?'] satisfies ShortcutKey[];

/**
 * The player's keys (docs/product.md#keyboard), on the whole page while the player is mounted:
 * never from a text field, never with Ctrl, Alt or Meta (the browser's own shortcuts), and never
 * for a key held down. `enabled(key)` may turn a key off for now (e.g. while the help is open).
 */
export function usePlayerShortcuts(
  handlers: Record<ShortcutKey, () => void>,
  enabled: (key: ShortcutKey) => boolean = () => true,
): void {
  // The latest handlers, read when a key comes: the listener is added once.
  const latest = useRef({ handlers, enabled });
  useEffect(() => {
    latest.current = { handlers, enabled };
  });

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.repeat) return;
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      if (!SHORTCUT_KEYS.includes(event.key) || isTextField(event.target)) return;
      const key = event.key as ShortcutKey;
      if (!latest.current.enabled(key)) return;
      event.preventDefault();
      latest.current.handlers[key]();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);
}
