/**
 * The rewind's keys in the live player (docs/product.md#rewind): `j` back and `l` on by 10 s, ← and
 * → by 5 s (the Recordings page's keys), Home to the oldest recorded instant of the hour, End back
 * to live, Space or `k` to pause and play the recording. Like the player's own keys: never from a
 * field that takes them (a text field, a slider, a menu; Space on a button presses it), never with
 * Ctrl, Alt or Meta, never for a key held down.
 */
import { useEffect, useRef } from 'react';

export interface RewindKeys {
  back: (seconds: number) => void;
  on: (seconds: number) => void;
  oldest: () => void;
  live: () => void;
  togglePause: () => void;
  steps: { key: number; arrow: number };
}

const TAKES_ARROWS =
  'input, select, textarea, [contenteditable], [role="slider"], [role="menu"], [role="menuitemradio"], [role="radiogroup"], [role="radio"], [role="listbox"], [role="tablist"], dialog';
const TAKES_SPACE = `${TAKES_ARROWS}, button, a, summary, [role="button"]`;

export function useRewindKeys(keys: RewindKeys): void {
  const latest = useRef(keys);
  useEffect(() => {
    latest.current = keys;
  });

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.repeat) return;
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      const target = event.target instanceof Element ? event.target : null;
      const { back, on, oldest, live, togglePause, steps } = latest.current;
      const actions: Record<string, { run: () => void; skip: string }> = {
        j: { run: () => back(steps.key), skip: TAKES_ARROWS },
        l: { run: () => on(steps.key), skip: TAKES_ARROWS },
        ArrowLeft: { run: () => back(steps.arrow), skip: TAKES_ARROWS },
        ArrowRight: { run: () => on(steps.arrow), skip: TAKES_ARROWS },
        Home: { run: oldest, skip: TAKES_ARROWS },
        End: { run: live, skip: TAKES_ARROWS },
        k: { run: togglePause, skip: TAKES_ARROWS },
        ' ': { run: togglePause, skip: TAKES_SPACE },
      };
      const action = actions[event.key];
      if (!action || target?.closest(action.skip)) return;
      event.preventDefault();
      action.run();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);
}
