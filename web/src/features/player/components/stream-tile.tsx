import { Suspense, useRef, useState, type ComponentType } from 'react';
import { ErrorBoundary } from '@/components/error-boundary';
import { Link } from 'react-router';
import { fillText, uiText } from '@/config/ui-text';
import { useLayerForWidth } from '../hooks/use-layer-for-width';
import { useLiveVideo } from '../hooks/use-live-video';
import { ConnectionQualityBadge } from './connection-quality-badge';
import { LiveVideo } from './live-video';
import type { FlightDataSlot } from './stream-player';

interface StreamTileProps {
  streamId: string;
  href: string;
  /** Over the picture once it is there: the flight data's altitude and speed. */
  FlightData?: ComponentType<FlightDataSlot> | undefined;
}

/**
 * One aircraft of 'Watch all' (docs/product.md#watch-all): the player's live video with a session
 * of its own (token, join, reconnect, overlays, quality), muted and without controls. The whole
 * tile is the link to the aircraft's player (a stretched link); the overlays sit above it, so an
 * error's 'Retry Connection' is a button of its own, never inside the link. Mount with
 * `key={streamId}`. Its video asks for the layer that fits the tile's width.
 */
export function StreamTile({ streamId, href, FlightData }: StreamTileProps) {
  const live = useLiveVideo(streamId, { frameDetail: false });
  const pictureRef = useRef<HTMLDivElement>(null);
  const [pictureBox, setPictureBox] = useState<HTMLDivElement | null>(null);
  useLayerForWidth(pictureRef, live.layers, live.preferLayer);

  return (
    <div className="group relative overflow-hidden rounded-xl border border-slate-800 bg-slate-900 shadow-lg shadow-black/20 transition focus-within:ring-2 focus-within:ring-sky-400 focus-within:ring-offset-2 focus-within:ring-offset-slate-950 hover:border-sky-500/60">
      <div
        ref={(box) => {
          pictureRef.current = box;
          setPictureBox(box);
        }}
        className="relative aspect-video min-h-44 bg-black"
      >
        <LiveVideo streamId={streamId} live={live} controls={false} />
        {live.firstPictureSettled && FlightData && (
          <ErrorBoundary fallback={null}>
            <Suspense fallback={null}>
              <FlightData
                onInBandMessage={live.onInBandMessage}
                videoBox={pictureBox}
                controls={null}
              />
            </Suspense>
          </ErrorBoundary>
        )}
        {live.quality && (
          <div className="pointer-events-none absolute top-2 right-2 z-10">
            <ConnectionQualityBadge quality={live.quality} />
          </div>
        )}
      </div>
      <Link
        to={href}
        aria-label={fillText(uiText.watchAll.tileLabel, { streamId })}
        // The link's box covers the whole tile (after:inset-0), under the overlays.
        className="flex items-center justify-between px-4 py-3 after:absolute after:inset-0 focus-visible:outline-none"
      >
        <span className="font-mono text-lg font-semibold tracking-wider text-white">
          {streamId}
        </span>
        <span aria-hidden="true" className="text-sm text-slate-400 group-hover:text-sky-300">
          {uiText.home.cardHint}
        </span>
      </Link>
    </div>
  );
}
