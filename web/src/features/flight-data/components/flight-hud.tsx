import { ArrowDown, ArrowRight, ArrowUp } from 'lucide-react';
import { useEffect, useRef, type ReactNode } from 'react';
import { fillText } from '@/config/ui-text';
import { flightText } from '@/config/ui-text-flight';
import { useFlightReading, useShownMediaTime } from '../hooks/use-flight-reading';
import type { FlightReading } from '../lib/flight-reading';
import { flightPhaseOf, type FlightPhase, type FlightSample } from '../lib/flight-sample';
import {
  formatAltitude,
  formatGroundSpeed,
  formatHeading,
  formatVerticalSpeed,
  verticalTrend,
} from '../lib/format-flight';
import type { LiveFlightData } from '../lib/live-flight-data';
import type { RecordedFlightData } from '../lib/recorded-flight-data';
import { FlightTrack } from './flight-track';

type FlightHudSource =
  /** The live picture: the figures of now. */
  | { mode: 'live'; store: LiveFlightData }
  /** A recording: the figures of the frame `video` shows. */
  | { mode: 'playback'; store: RecordedFlightData; video: HTMLVideoElement | null };

export type FlightHudProps = FlightHudSource & {
  /**
   * 'player' (the default): the four figures and the track, over the foot of the video, above
   * its native controls. 'tile': altitude and speed only, over a Watch all tile's top left.
   */
  variant?: 'player' | 'tile';
  /** Says a change of flight phase in the player's polite live region ('Flight phase: Climb'). */
  onAnnounce?: ((text: string) => void) | undefined;
};

/**
 * The flight data over the picture (docs/product.md#flight-data), in a `relative` video box.
 * Nothing is drawn before the first sample (a publisher that sends none shows nothing, never
 * '0 ft') nor once the last is too old; in between, a sample past its time is dimmed with its
 * age. The figures change every second, so they are hidden from screen readers: only a change of
 * flight phase is said, once.
 */
export function FlightHud(props: FlightHudProps) {
  const { variant = 'player', onAnnounce } = props;
  useShownMediaTime(
    props.mode === 'playback' ? props.store : undefined,
    props.mode === 'playback' ? props.video : null,
  );
  const reading = useFlightReading(props.store);
  usePhaseAnnouncement(reading, onAnnounce);

  if (reading.status === 'none' || reading.status === 'gone') return null;
  const { sample, status } = reading;
  const stale = status === 'stale';
  const age = stale ? fillText(flightText.age, { seconds: String(reading.ageSeconds) }) : undefined;

  if (variant === 'tile') {
    return (
      <div
        aria-hidden="true"
        data-testid="flight-hud"
        data-status={status}
        data-captured-at={sample.capturedAtMs}
        className="pointer-events-none absolute top-2 left-2 z-5 flex items-center gap-2 rounded-md bg-slate-950/75 px-2 py-1 font-mono text-xs text-slate-100 ring-1 ring-slate-700/80 backdrop-blur-sm"
      >
        <span className={stale ? 'opacity-50' : undefined}>
          {formatAltitude(sample.altitudeFt)}
        </span>
        <span className={stale ? 'opacity-50' : undefined}>
          {formatGroundSpeed(sample.groundSpeedKt)}
        </span>
        {age && <span className="text-amber-300">{age}</span>}
      </div>
    );
  }

  const phase = flightPhaseOf(sample);
  return (
    <div
      aria-hidden="true"
      data-testid="flight-hud"
      data-status={status}
      // The sample's instant, for the end-to-end tests and the bench (its lag behind its frame).
      data-captured-at={sample.capturedAtMs}
      // Above the native controls (they take the video's foot), under the connection overlays
      // (z-10) and the rewind's picture (z-20); the pointer goes through to the video.
      className="pointer-events-none absolute inset-x-0 bottom-11 z-5 flex items-end justify-between gap-2 px-2 sm:bottom-14 sm:px-3"
    >
      <div className="shrink-0 rounded-lg bg-slate-950/70 px-2 py-1.5 font-mono text-slate-100 shadow-lg ring-1 ring-slate-700/80 backdrop-blur-sm sm:px-3 sm:py-2">
        {(phase || age) && (
          <p className="mb-1 flex gap-2 text-[10px] leading-none tracking-wide uppercase sm:text-xs">
            {phase && (
              <span className={`text-sky-300 ${stale ? 'opacity-50' : ''}`}>
                {flightText.phases[phase]}
              </span>
            )}
            {age && <span className="text-amber-300 normal-case">{age}</span>}
          </p>
        )}
        <dl
          // Below 640 px, two by two without labels (the units tell the figures apart).
          className={`grid grid-cols-[repeat(2,auto)] gap-x-3 gap-y-0.5 sm:grid-cols-[repeat(4,auto)] sm:gap-x-5 ${stale ? 'opacity-50' : ''}`}
        >
          <Figure label={flightText.altitude} value={formatAltitude(sample.altitudeFt)} />
          <Figure label={flightText.groundSpeed} value={formatGroundSpeed(sample.groundSpeedKt)} />
          <Figure label={flightText.heading} value={formatHeading(sample.headingDeg)} />
          <Figure
            label={flightText.verticalSpeed}
            value={formatVerticalSpeed(sample.verticalSpeedFpm)}
            trend={<TrendArrow sample={sample} />}
          />
        </dl>
      </div>
      <FlightTrack
        track={reading.track}
        headingDeg={sample.headingDeg}
        className={`size-16 shrink-0 rounded-lg bg-slate-950/70 ring-1 ring-slate-700/80 backdrop-blur-sm sm:size-24 lg:size-32 ${stale ? 'opacity-50' : ''}`}
      />
    </div>
  );
}

function Figure({ label, value, trend }: { label: string; value: string; trend?: ReactNode }) {
  return (
    <div>
      <dt className="hidden text-xs leading-tight text-slate-400 sm:block">{label}</dt>
      <dd className="flex items-center gap-0.5 text-xs leading-tight font-semibold whitespace-nowrap tabular-nums sm:text-base lg:text-lg">
        {trend}
        {value}
      </dd>
    </div>
  );
}

function TrendArrow({ sample }: { sample: FlightSample }) {
  const trend = verticalTrend(sample.verticalSpeedFpm);
  const className = 'size-3.5 shrink-0 sm:size-4';
  if (trend === 'climbing')
    return <ArrowUp data-trend={trend} className={`${className} text-emerald-300`} />;
  if (trend === 'descending')
    return <ArrowDown data-trend={trend} className={`${className} text-amber-300`} />;
  return <ArrowRight data-trend={trend} className={`${className} text-slate-400`} />;
}

/**
 * Says 'Flight phase: {phase}' when the phase of what is shown changes from one to another: not
 * for the first phase seen, not for a repeat, and not while the figures are stale or gone.
 */
function usePhaseAnnouncement(
  reading: FlightReading,
  onAnnounce: ((text: string) => void) | undefined,
): void {
  const phase = reading.status === 'fresh' ? flightPhaseOf(reading.sample) : undefined;
  const lastPhase = useRef<FlightPhase | undefined>(undefined);
  useEffect(() => {
    if (phase === undefined) return;
    const previous = lastPhase.current;
    lastPhase.current = phase;
    if (previous !== undefined && previous !== phase) {
      onAnnounce?.(fillText(flightText.phaseChanged, { phase: flightText.phases[phase] }));
    }
  }, [phase, onAnnounce]);
}
