import { Gauge } from 'lucide-react';
import { flightText } from '@/config/ui-text-flight';
import { FLIGHT_HUD_KEY } from '../hooks/use-flight-hud-toggle';

interface FlightHudToggleProps {
  shown: boolean;
  onToggle: () => void;
  /** The look of the player's other control buttons. */
  className: string;
}

/** The button 'Flight data' (also the key `h`), pressed while the HUD is shown. */
export function FlightHudToggle({ shown, onToggle, className }: FlightHudToggleProps) {
  return (
    <button
      type="button"
      aria-pressed={shown}
      aria-keyshortcuts={FLIGHT_HUD_KEY}
      title={`${flightText.toggle} (${FLIGHT_HUD_KEY})`}
      onClick={onToggle}
      className={className}
    >
      <Gauge aria-hidden="true" className="size-4" />
      <span className="sr-only">{flightText.toggle}</span>
    </button>
  );
}
