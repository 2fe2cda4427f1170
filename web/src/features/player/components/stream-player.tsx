import { useRef } from 'react';
import { fillText, uiText } from '@/config/ui-text';
import { useStageSession } from '../hooks/use-stage-session';
import {
  AutoplayBlockedNotice,
  ErrorOverlay,
  LoadingOverlay,
  ReconnectingOverlay,
} from './player-overlays';

interface StreamPlayerProps {
  streamId: string;
}

/** The live video of one stream with its connection overlays. Mount with `key={streamId}`. */
export function StreamPlayer({ streamId }: StreamPlayerProps) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const { state, autoplayBlocked, retry, resumePlayback } = useStageSession(streamId, videoRef);

  return (
    <div
      // Overlays need more room than a 16:9 box has on a phone; playing video does not.
      data-overlay={state.status !== 'connected' || undefined}
      className="relative aspect-video max-h-[calc(100vh-10rem)] w-full overflow-hidden rounded-xl bg-black data-overlay:min-h-72 shadow-2xl ring-1 shadow-black/40 ring-slate-800"
    >
      <video
        ref={videoRef}
        className="size-full object-contain"
        aria-label={fillText(uiText.player.video, { streamId })}
        data-state={state.status}
        muted
        autoPlay
        controls
        playsInline
        onClick={
          autoplayBlocked
            ? (event) => {
                event.preventDefault(); // the click plays; the native controls must not toggle back
                resumePlayback();
              }
            : undefined
        }
      />
      {state.status === 'loading' && <LoadingOverlay />}
      {state.status === 'reconnecting' && (
        <ReconnectingOverlay message={uiText.errors.connectionLost} />
      )}
      {state.status === 'error' && <ErrorOverlay message={state.message} onRetry={retry} />}
      {state.status === 'connected' && autoplayBlocked && (
        <AutoplayBlockedNotice message={uiText.errors.autoplayBlocked} />
      )}
    </div>
  );
}
