import { Link } from 'react-router';
import { useRef } from 'react';
import { fillText, uiText } from '@/config/ui-text';
import { ConnectionQualityBadge } from './connection-quality-badge';
import { AutoplayBlockedNotice, connectionOverlay } from './player-overlays';
import { usePlaybackStats } from '../hooks/use-playback-stats';
import { useStageSession } from '../hooks/use-stage-session';
import { connectionQuality } from '../lib/playback-stats';

interface StreamTileProps {
  streamId: string;
  href: string;
}

/**
 * One aircraft of 'Watch all' (docs/product.md#watch-all): a player session of its own (token,
 * join, reconnect, overlays, quality) with muted video and no controls. The whole tile is the
 * link to the aircraft's player (a stretched link); the overlays sit above it, so an error's
 * 'Retry Connection' is a button of its own, never inside the link. Mount with `key={streamId}`.
 */
export function StreamTile({ streamId, href }: StreamTileProps) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const { state, videoStream, autoplayBlocked, retry, resumePlayback } = useStageSession(
    streamId,
    videoRef,
  );
  const figures = usePlaybackStats(videoRef, videoStream);
  const connected = state.status === 'connected';
  // Overlays sit above the stretched link: they say what is wrong, and one has a button.
  const overlay = connectionOverlay(state, streamId, retry);

  return (
    <div className="group relative overflow-hidden rounded-xl border border-slate-800 bg-slate-900 shadow-lg shadow-black/20 transition focus-within:ring-2 focus-within:ring-sky-400 focus-within:ring-offset-2 focus-within:ring-offset-slate-950 hover:border-sky-500/60">
      <div className="relative aspect-video min-h-44 bg-black">
        <video
          ref={videoRef}
          className="size-full object-contain"
          aria-label={fillText(uiText.player.video, { streamId })}
          data-state={state.status}
          muted
          autoPlay
          playsInline
        />
        {overlay && <div className="absolute inset-0 z-10">{overlay}</div>}
        {connected && !state.waitingForVideo && autoplayBlocked && (
          // Above the stretched link: the click the notice asks for plays the video here.
          <button
            type="button"
            onClick={resumePlayback}
            aria-label={uiText.errors.autoplayBlocked}
            className="absolute inset-0 z-10 focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none focus-visible:ring-inset"
          >
            <AutoplayBlockedNotice message={uiText.errors.autoplayBlocked} />
          </button>
        )}
        {connected && figures && (
          <div className="pointer-events-none absolute top-2 right-2 z-10">
            <ConnectionQualityBadge quality={connectionQuality(figures)} />
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
