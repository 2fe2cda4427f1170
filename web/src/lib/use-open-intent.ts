import { useRef } from 'react';
import { useRestingPointer } from './use-resting-pointer';

export interface OpenIntentHandlers {
  /** What only may open the streams: a press (any pointer's), the focus a press gives. */
  onPrefetch: () => void;
  /** What says the viewer is about to open them: a mouse resting on the element, a keyboard's focus. */
  onJoin: () => void;
  /** The intent went: the pointer left, the focus moved away. */
  onEnd: () => void;
}

/**
 * The pointer and focus handlers of a link that opens streams (a stream card, 'Watch all'): a
 * mouse resting on it `HOVER_INTENT_MS`, or its focus from the keyboard, may start the joins
 * (decision 0091); a press, or a touch or pen resting, fetches tokens only (decision 0040: a
 * touch's press may be the start of a scroll, a press with a modifier opens another tab).
 */
export function useOpenIntent({ onPrefetch, onJoin, onEnd }: OpenIntentHandlers) {
  const pointerType = useRef('');
  // The focus that follows a press is the press's; cleared by it, or when the focus goes.
  const pressed = useRef(false);
  const resting = useRestingPointer(() =>
    pointerType.current === 'mouse' ? onJoin() : onPrefetch(),
  );
  return {
    onPointerEnter: (event: { pointerType: string }) => {
      pointerType.current = event.pointerType;
      resting.onPointerEnter();
    },
    onPointerLeave: () => {
      resting.onPointerLeave();
      onEnd();
    },
    onPointerDown: () => {
      resting.cancel();
      pressed.current = true;
      onPrefetch();
    },
    onFocus: () => {
      if (pressed.current) onPrefetch();
      else onJoin();
      pressed.current = false;
    },
    onBlur: () => {
      pressed.current = false;
      onEnd();
    },
  };
}
