import { Activity, Keyboard } from 'lucide-react';
import {
  lazy,
  Suspense,
  useEffect,
  useRef,
  useState,
  type ComponentType,
  type RefObject,
} from 'react';
import { ErrorBoundary } from '@/components/error-boundary';
import { uiText } from '@/config/ui-text';
import { useLiveVideo } from '../hooks/use-live-video';
import { usePlayerShortcuts } from '../hooks/use-player-shortcuts';
import { useAnnouncer } from '@/lib/use-announcer';
import type { StageSessionView } from '../hooks/use-stage-session';
import { toggleFullscreen, togglePictureInPicture } from '../lib/display-modes';
import { ConnectionQualityBadge } from './connection-quality-badge';
import { LiveVideo } from './live-video';

// What the player shows only on demand comes in chunks of its own, fetched once the video plays
// (below): the first load carries only what the first picture needs (docs/benchmarks.md).
const loadLiveStats = () => import('./live-stats');
const loadKeyboardHelp = () => import('./keyboard-help-dialog');
const loadQualityChoice = () => import('./quality-choice');
const QualityChoice = lazy(() =>
  loadQualityChoice().then((module) => ({ default: module.QualityChoice })),
);
const LiveStatsPanel = lazy(() =>
  loadLiveStats().then((module) => ({ default: module.LiveStatsPanel })),
);
const KeyboardHelpDialog = lazy(() =>
  loadKeyboardHelp().then((module) => ({ default: module.KeyboardHelpDialog })),
);

/** What the app lays beside the live picture: the rewind (decision 0088). */
export interface RewindSlot {
  streamId: string;
  /** The live video's box: what goes back in time is laid over it. */
  videoBox: HTMLDivElement | null;
  liveVideo: RefObject<HTMLVideoElement | null>;
  /** Whether the picture is not the live one: the badge and the stats then say what they measure. */
  onBehindChange: (behind: boolean) => void;
  /** Says it to screen readers in the player's polite live region (one a page). */
  announce: (text: string) => void;
}

/**
 * What the app lays over a live picture from its video's in-band messages: the flight data
 * (docs/product.md#flight-data). In the player and in a Watch all tile.
 */
export interface FlightDataSlot {
  /** Each in-band message of the shown video, until the returned function is called. */
  onInBandMessage: StageSessionView['onInBandMessage'];
  /** The video's box (`relative`): what is drawn over the picture goes there. */
  videoBox: HTMLDivElement | null;
  /** The player's controls, where its toggle goes; null in a tile, which has none. */
  controls: HTMLDivElement | null;
  /** Says it in the player's polite live region (the viewer's own action's); none in a tile. */
  announce?: ((text: string) => void) | undefined;
  /**
   * When the polite region's last message was said (`performance.now()`): what the page says by
   * itself (a change of flight phase) waits for it to stand a while; none in a tile.
   */
  announcedAt?: { readonly current: number } | undefined;
  /** Whether the player's keys work now (not while its help is open); none in a tile. */
  keysEnabled?: (() => boolean) | undefined;
}

interface StreamPlayerProps {
  streamId: string;
  /**
   * Shown below the video once connected and its first picture is there, or there is none to wait
   * for (a lazy component: it waits in a Suspense).
   */
  Rewind?: ComponentType<RewindSlot> | undefined;
  /** Over the video once its first picture is there (a lazy component, like `Rewind`). */
  FlightData?: ComponentType<FlightDataSlot> | undefined;
  /**
   * Under 'Waiting for video', mounted each time it shows (a lazy component): since when the
   * aircraft is off air.
   */
  OffAirSince?: ComponentType<{ streamId: string }> | undefined;
}

const controlButton =
  'inline-flex size-8 items-center justify-center rounded-lg bg-slate-950/75 text-slate-200 ring-1 ring-slate-700/80 backdrop-blur-sm transition hover:bg-slate-800 hover:text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none aria-pressed:bg-sky-500 aria-pressed:text-slate-950 aria-pressed:ring-sky-300';

/**
 * The live video of one stream with its connection overlays, the live stats, the connection
 * quality and the keyboard (docs/product.md#player). Mount with `key={streamId}`.
 */
export function StreamPlayer({ streamId, Rewind, FlightData, OffAirSince }: StreamPlayerProps) {
  const boxRef = useRef<HTMLDivElement>(null);
  const [videoBox, setVideoBox] = useState<HTMLDivElement | null>(null);
  const [controls, setControls] = useState<HTMLDivElement | null>(null);
  const [behind, setBehind] = useState(false);
  const [statsOpen, setStatsOpen] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);
  const { announcement, announce, announcedAt } = useAnnouncer();
  const { shortcuts } = uiText;
  const live = useLiveVideo(streamId, { frameDetail: statsOpen });
  const { state, videoRef, figures, quality, layers, preferLayer } = live;
  const connected = state.status === 'connected';
  const playing = connected && !state.waitingForVideo;
  const showStats = playing && statsOpen;
  // The first frame is on screen (or the browser refused to autoplay): what only follows it.
  const pictured = playing && live.videoStarted;

  // Once the picture is there, the join no longer competes for the page: fetch the panels.
  useEffect(() => {
    if (!pictured) return;
    // One that fails here is fetched again when opened (and then shows nothing if it fails).
    void loadLiveStats().catch(() => undefined);
    void loadKeyboardHelp().catch(() => undefined);
  }, [pictured]);

  const toggleStats = () => {
    announce(statsOpen ? shortcuts.statsHidden : shortcuts.statsShown);
    setStatsOpen(!statsOpen);
  };

  usePlayerShortcuts(
    {
      f: () => {
        const box = boxRef.current;
        if (box) void toggleFullscreen(box).then(announce);
      },
      p: () => {
        const video = videoRef.current;
        if (video) void togglePictureInPicture(video).then(announce);
      },
      i: toggleStats,
      '?': () => setHelpOpen(!helpOpen),
    },
    // While the help is open, only `?` (and Escape) close it; nothing changes behind it.
    (key) => !helpOpen || key === '?',
  );

  // The box is what goes fullscreen: the video and, below it on a phone, the controls and the live
  // stats (over it in fullscreen, where the picture fills the screen).
  return (
    <div ref={boxRef} className="relative w-full [&:fullscreen]:bg-black">
      <div
        ref={setVideoBox}
        // Overlays need more room than a 16:9 box has on a phone; video alone does not. From
        // 640 px the stats lie over the video and need it too; below, they go under the video.
        data-overlay={!connected || state.waitingForVideo || undefined}
        data-stats={statsOpen || undefined}
        className="relative aspect-video max-h-[calc(100vh-10rem)] w-full overflow-hidden rounded-xl bg-black data-overlay:min-h-72 shadow-2xl ring-1 shadow-black/40 ring-slate-800 sm:data-stats:min-h-72 [:fullscreen>&]:h-full [:fullscreen>&]:max-h-none [:fullscreen>&]:rounded-none"
      >
        <LiveVideo
          streamId={streamId}
          live={live}
          controls
          waitingDetail={
            OffAirSince && (
              <ErrorBoundary fallback={null}>
                <Suspense fallback={null}>
                  <OffAirSince streamId={streamId} />
                </Suspense>
              </ErrorBoundary>
            )
          }
        />
      </div>
      <div
        ref={setControls}
        role="group"
        aria-label={uiText.player.controls}
        className="mt-2 flex items-center justify-end gap-1.5 sm:absolute sm:top-3 sm:right-3 sm:z-30 sm:mt-0 [:fullscreen>&]:absolute [:fullscreen>&]:top-3 [:fullscreen>&]:right-3 [:fullscreen>&]:z-30 [:fullscreen>&]:mt-0"
      >
        {quality && <ConnectionQualityBadge quality={quality} behind={behind} />}
        {pictured && layers.layers.length > 1 && (
          <ErrorBoundary fallback={null}>
            <Suspense fallback={null}>
              <QualityChoice
                layers={layers}
                onChoose={(label, announcement) => {
                  preferLayer(label);
                  announce(announcement);
                }}
              />
            </Suspense>
          </ErrorBoundary>
        )}
        {connected && (
          <button
            type="button"
            aria-pressed={statsOpen}
            aria-keyshortcuts="i"
            title={`${uiText.player.statsButton} (i)`}
            onClick={toggleStats}
            className={controlButton}
          >
            <Activity aria-hidden="true" className="size-4" />
            <span className="sr-only">{uiText.player.statsButton}</span>
          </button>
        )}
        <button
          type="button"
          aria-haspopup="dialog"
          aria-keyshortcuts="?"
          title={`${uiText.player.helpButton} (?)`}
          onClick={() => setHelpOpen(true)}
          className={controlButton}
        >
          <Keyboard aria-hidden="true" className="size-4" />
          <span className="sr-only">{uiText.player.helpButton}</span>
        </button>
      </div>
      {/* After the first picture: its chunk, render and list do not compete with the join
          (decision 0093). */}
      {connected && live.firstPictureSettled && Rewind && (
        <ErrorBoundary fallback={null}>
          <Suspense fallback={null}>
            <Rewind
              streamId={streamId}
              videoBox={videoBox}
              liveVideo={videoRef}
              onBehindChange={setBehind}
              announce={announce}
            />
          </Suspense>
        </ErrorBoundary>
      )}
      {connected && live.firstPictureSettled && FlightData && (
        <ErrorBoundary fallback={null}>
          <Suspense fallback={null}>
            <FlightData
              onInBandMessage={live.onInBandMessage}
              videoBox={videoBox}
              controls={controls}
              announce={announce}
              announcedAt={announcedAt}
              keysEnabled={() => !helpOpen}
            />
          </Suspense>
        </ErrorBoundary>
      )}
      {showStats && (
        <ErrorBoundary fallback={null}>
          <Suspense fallback={null}>
            <LiveStatsPanel figures={figures} layers={layers} behind={behind} />
          </Suspense>
        </ErrorBoundary>
      )}
      {helpOpen && (
        <ErrorBoundary fallback={null}>
          <Suspense fallback={null}>
            <KeyboardHelpDialog open onClose={() => setHelpOpen(false)} />
          </Suspense>
        </ErrorBoundary>
      )}
      <div aria-live="polite" aria-atomic="true" className="sr-only">
        <span key={announcement.id}>{announcement.text}</span>
      </div>
    </div>
  );
}
