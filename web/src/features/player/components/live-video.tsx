import type { ReactNode } from 'react';
import { fillText, uiText } from '@/config/ui-text';
import type { LiveVideoView } from '../hooks/use-live-video';
import { AutoplayBlockedNotice, VideoPausedNotice, connectionOverlay } from './player-overlays';

interface LiveVideoProps {
  streamId: string;
  live: LiveVideoView;
  /**
   * The player's video: native controls, and where the browser refused to autoplay, a click on
   * the video plays it. Without (a Watch all tile, whose whole box is a link), the notice is a
   * button of its own above the link, and its click plays the video.
   */
  controls: boolean;
  /** Under 'Waiting for video', mounted while it shows: since when the aircraft is off air. */
  waitingDetail?: ReactNode;
}

/**
 * The `<video>` of a stream, muted, autoplaying and inline, with what its session shows over it:
 * the connection overlays, the autoplay notice, and the notice of a video the stage paused for a
 * slow link (its last picture stays, docs/product.md#player). The player and a
 * Watch all tile show the same; place it in a `relative` box.
 */
export function LiveVideo({ streamId, live, controls, waitingDetail }: LiveVideoProps) {
  const { state, videoRef, autoplayBlocked, resumePlayback, retry, layers } = live;
  // Overlays sit above whatever the box stacks on the video (a tile's stretched link).
  const overlay = connectionOverlay(state, streamId, retry, waitingDetail);
  const playing = state.status === 'connected' && !state.waitingForVideo;

  return (
    <>
      <video
        ref={videoRef}
        className="size-full object-contain"
        aria-label={fillText(uiText.player.video, { streamId })}
        data-state={state.status}
        muted
        autoPlay
        controls={controls}
        playsInline
        onClick={
          controls && autoplayBlocked
            ? (event) => {
                event.preventDefault(); // the click plays; the native controls must not toggle back
                resumePlayback();
              }
            : undefined
        }
      />
      {overlay && <div className="absolute inset-0 z-10">{overlay}</div>}
      {playing && layers.videoPaused && <VideoPausedNotice message={uiText.player.videoPaused} />}
      {playing &&
        autoplayBlocked &&
        (controls ? (
          <AutoplayBlockedNotice message={uiText.errors.autoplayBlocked} />
        ) : (
          <button
            type="button"
            onClick={resumePlayback}
            aria-label={uiText.errors.autoplayBlocked}
            className="absolute inset-0 z-10 focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none focus-visible:ring-inset"
          >
            <AutoplayBlockedNotice message={uiText.errors.autoplayBlocked} />
          </button>
        ))}
    </>
  );
}
