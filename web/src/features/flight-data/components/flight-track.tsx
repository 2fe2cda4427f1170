import { flightText } from '@/config/ui-text-flight';
import type { TrackPoint } from '../lib/flight-reading';
import { projectTrack, TRACK_BOX } from '../lib/track-projection';

interface FlightTrackProps {
  track: readonly TrackPoint[];
  headingDeg: number;
  className?: string;
}

/** The last minutes of positions as a line, north up, the aircraft an arrowhead on its heading. */
export function FlightTrack({ track, headingDeg, className }: FlightTrackProps) {
  const projected = projectTrack(track);
  if (!projected) return null;
  const { x, y } = projected.current;
  return (
    <svg
      viewBox={`0 0 ${TRACK_BOX} ${TRACK_BOX}`}
      className={className}
      data-testid="flight-track"
      aria-hidden="true"
    >
      <text
        x={TRACK_BOX / 2}
        y={9}
        textAnchor="middle"
        className="fill-slate-400 text-[9px] font-semibold"
      >
        {flightText.north}
      </text>
      <polyline
        points={projected.points}
        fill="none"
        strokeWidth={2.5}
        strokeLinejoin="round"
        strokeLinecap="round"
        className="stroke-sky-300"
      />
      <path
        d="M 0 -7 L 5 5 L 0 2.5 L -5 5 Z"
        transform={`translate(${x} ${y}) rotate(${headingDeg})`}
        className="fill-amber-300 stroke-slate-950"
        strokeWidth={1}
        data-testid="flight-track-aircraft"
      />
    </svg>
  );
}
