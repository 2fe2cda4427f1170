import {
  AlertTriangle,
  LoaderCircle,
  MousePointerClick,
  Pause,
  RefreshCw,
  VideoOff,
  WifiOff,
} from 'lucide-react';
import { useEffect, useState, type ReactNode } from 'react';
import type { PlayerState } from '../lib/player-machine';
import { fillText, uiText } from '@/config/ui-text';

/** How long a join may take before the loading overlay's spinner shows and turns. */
export const SPINNER_DELAY_MS = 500;

function Overlay({
  children,
  role,
  overPicture = true,
}: {
  children: ReactNode;
  role: 'status' | 'alert';
  /** Whether a picture may be behind it, to blur. */
  overPicture?: boolean;
}) {
  return (
    <div
      role={role}
      className={`absolute inset-0 flex flex-col items-center justify-center gap-3 bg-slate-950/85 p-6 text-center ${overPicture ? 'backdrop-blur-sm' : ''}`}
    >
      {children}
    </div>
  );
}

/** Whether `ms` have passed since the mount. */
function useElapsed(ms: number): boolean {
  const [elapsed, setElapsed] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setElapsed(true), ms);
    return () => clearTimeout(timer);
  }, [ms]);
  return elapsed;
}

/**
 * Before the first picture: no blur (the box behind is black), and the spinner only once the wait
 * is long enough to see. Either would have the browser draw a frame every refresh while the join
 * competes for the machine (decision 0093); the words are there, and said, at once.
 */
export function LoadingOverlay() {
  const spinning = useElapsed(SPINNER_DELAY_MS);
  return (
    <Overlay role="status" overPicture={false}>
      <LoaderCircle
        aria-hidden="true"
        className={`size-10 text-sky-400 ${spinning ? 'animate-spin' : 'invisible'}`}
      />
      <p className="text-lg font-semibold text-white">{uiText.player.connecting}</p>
      <p className="text-sm text-slate-400">{uiText.player.connectingNote}</p>
    </Overlay>
  );
}

export function ReconnectingOverlay({ message }: { message: string }) {
  return (
    <Overlay role="status">
      <WifiOff aria-hidden="true" className="size-10 animate-pulse text-amber-400" />
      <p className="text-lg font-semibold text-white">{message}</p>
    </Overlay>
  );
}

/**
 * Connected, but no picture (docs/product.md#when-there-is-no-picture): a status, not an error.
 * `detail`: what the app adds under the note (since when the aircraft is off air).
 */
export function WaitingForVideoOverlay({
  streamId,
  detail,
}: {
  streamId: string;
  detail?: ReactNode;
}) {
  return (
    <Overlay role="status">
      <VideoOff aria-hidden="true" className="size-10 text-slate-400" />
      <p className="text-lg font-semibold text-white">
        {fillText(uiText.player.waitingForVideo, { streamId })}
      </p>
      <p className="max-w-sm text-sm text-slate-400">{uiText.player.waitingForVideoNote}</p>
      {detail}
    </Overlay>
  );
}

export function ErrorOverlay({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <Overlay role="alert">
      <AlertTriangle aria-hidden="true" className="size-10 text-red-400" />
      <h2 className="text-xl font-semibold text-white">{uiText.player.errorTitle}</h2>
      <p className="max-w-md text-sm break-words text-slate-300">{message}</p>
      <button
        type="button"
        onClick={onRetry}
        className="mt-2 inline-flex items-center gap-2 rounded-lg bg-sky-500 px-4 py-2 font-semibold text-slate-950 transition hover:bg-sky-400 focus-visible:ring-2 focus-visible:ring-sky-300 focus-visible:ring-offset-2 focus-visible:ring-offset-slate-900 focus-visible:outline-none"
      >
        <RefreshCw aria-hidden="true" className="size-4" />
        {uiText.player.retry}
      </button>
    </Overlay>
  );
}

/**
 * A status over the video's top or foot that does not catch the pointer (a click lands on the
 * video itself).
 */
function VideoNotice({
  message,
  icon,
  at,
}: {
  message: string;
  icon: ReactNode;
  at: 'top' | 'bottom';
}) {
  return (
    <div
      role="status"
      className={`pointer-events-none absolute inset-x-0 ${at === 'top' ? 'top-0' : 'bottom-0'} flex justify-center p-3 sm:p-4`}
    >
      <p className="inline-flex items-center gap-2 rounded-lg bg-slate-900/90 px-3.5 py-2 text-sm text-slate-100 shadow-lg ring-1 ring-slate-700">
        {icon}
        {message}
      </p>
    </div>
  );
}

export function AutoplayBlockedNotice({ message }: { message: string }) {
  const icon = <MousePointerClick aria-hidden="true" className="size-4 shrink-0 text-sky-400" />;
  return <VideoNotice message={message} icon={icon} at="top" />;
}

/**
 * The stage paused the video (not even its lowest layer fits the viewer's link): the last picture
 * stays, with this over its foot. A status, never an error: it goes when the video resumes.
 */
export function VideoPausedNotice({ message }: { message: string }) {
  const icon = <Pause aria-hidden="true" className="size-4 shrink-0 text-amber-400" />;
  return <VideoNotice message={message} icon={icon} at="bottom" />;
}

/**
 * The overlay a player state shows over the video, if any: loading, 'Connection lost.
 * Reconnecting...', the error with its retry, or waiting for video. The player and a Watch all
 * tile show the same ones (docs/product.md#player-states).
 */
export function connectionOverlay(
  state: PlayerState,
  streamId: string,
  onRetry: () => void,
  waitingDetail?: ReactNode,
): ReactNode | undefined {
  switch (state.status) {
    case 'loading':
      return <LoadingOverlay />;
    case 'reconnecting':
      return <ReconnectingOverlay message={uiText.errors.connectionLost} />;
    case 'error':
      return <ErrorOverlay message={state.message} onRetry={onRetry} />;
    case 'connected':
      return state.waitingForVideo ? (
        <WaitingForVideoOverlay streamId={streamId} detail={waitingDetail} />
      ) : undefined;
  }
}
