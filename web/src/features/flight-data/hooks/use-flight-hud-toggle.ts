import { useEffect, useRef, useState } from 'react';
import { flightText } from '@/config/ui-text-flight';
import { isTextField } from '@/lib/is-text-field';

export const FLIGHT_HUD_KEY = 'h';

interface FlightHudToggleOptions {
  /** Says 'Flight data shown' or 'Flight data hidden' in the player's polite live region. */
  onAnnounce?: ((text: string) => void) | undefined;
  /** Whether the key works now (the player turns its keys off while its help is open). */
  keyEnabled?: (() => boolean) | undefined;
}

/**
 * Whether the player shows its flight data HUD (shown at first), and the toggle, also on the key
 * `h` with the player's rules for its keys (docs/product.md#keyboard): on the whole page while
 * mounted, never from a text field, never with Ctrl, Alt or Meta, never for a key held down.
 */
export function useFlightHudToggle({ onAnnounce, keyEnabled }: FlightHudToggleOptions = {}): {
  shown: boolean;
  toggle: () => void;
} {
  const [shown, setShown] = useState(true);
  const toggle = () => {
    onAnnounce?.(shown ? flightText.hidden : flightText.shown);
    setShown(!shown);
  };

  // The latest toggle, read when the key comes: the listener is added once.
  const latest = useRef({ toggle, keyEnabled });
  useEffect(() => {
    latest.current = { toggle, keyEnabled };
  });

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.repeat) return;
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      if (event.key !== FLIGHT_HUD_KEY || isTextField(event.target)) return;
      if (latest.current.keyEnabled && !latest.current.keyEnabled()) return;
      event.preventDefault();
      latest.current.toggle();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

  return { shown, toggle };
}
