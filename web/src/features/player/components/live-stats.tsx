import { statsText } from '@/config/ui-text-stats';
import { figureRows } from '../lib/format-figures';
import type { PlaybackFigures } from '../lib/playback-stats';
import type { VideoLayers } from '../lib/video-layers';

/**
 * 'Live stats' over the top left of the video, and below it on a screen narrower than 640 px, where
 * it would hide most of the picture (docs/product.md#live-stats). Not a live region:
 * figures that change every second would drown a screen reader; they are read on demand.
 */
export function LiveStatsPanel({
  figures,
  layers,
  behind = false,
}: {
  figures: PlaybackFigures | undefined;
  layers?: VideoLayers;
  /** The picture is the recording: these figures are still the live connection's, beneath it. */
  behind?: boolean;
}) {
  const rows = figureRows(figures ?? { glassToGlassIsEstimate: false }, layers);
  return (
    <section
      aria-labelledby="live-stats-title"
      className="pointer-events-none mt-3 rounded-lg bg-slate-950/80 px-3 py-2 font-mono text-[11px] leading-snug text-slate-200 shadow-lg ring-1 ring-slate-700/80 backdrop-blur-sm sm:absolute sm:top-3 sm:left-3 sm:z-30 sm:mt-0 sm:max-w-[calc(100%-1.5rem)] sm:text-xs [:fullscreen>&]:absolute [:fullscreen>&]:top-3 [:fullscreen>&]:left-3 [:fullscreen>&]:z-30 [:fullscreen>&]:mt-0"
    >
      <h2 id="live-stats-title" className="mb-1 font-sans text-xs font-semibold text-sky-300">
        {statsText.title}
      </h2>
      {behind && (
        <p className="mb-1 font-sans text-[11px] text-amber-300">{statsText.behindNote}</p>
      )}
      <dl className="grid grid-cols-[auto_auto] gap-x-3">
        {rows.map(({ label, value }) => (
          <div key={label} className="contents">
            <dt className="whitespace-nowrap text-slate-400">{label}</dt>
            <dd className="text-right whitespace-nowrap tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
