import { useEffect, useRef } from 'react';

/** How long the pointer rests on an element before it counts as an intent (a pass-over does not). */
export const HOVER_INTENT_MS = 65;

/**
 * `onRest` once the pointer has rested `HOVER_INTENT_MS` on the element the handlers are given
 * to; a pass-over does nothing. `cancel` forgets a rest that has begun (a press calls its intent
 * at once). Decision 0040.
 */
export function useRestingPointer(onRest: () => void) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(onRest);
  useEffect(() => {
    latest.current = onRest;
  });
  useEffect(() => () => clearTimeout(timer.current), []);
  const cancel = () => clearTimeout(timer.current);
  return {
    cancel,
    onPointerEnter: () => {
      cancel();
      timer.current = setTimeout(() => latest.current(), HOVER_INTENT_MS);
    },
    onPointerLeave: cancel,
  };
}
