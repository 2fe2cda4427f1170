import { useCallback, useEffect, useState, useSyncExternalStore, type RefObject } from 'react';
import { attachVideoTrack, playVideo } from '../lib/attach-video-track';
import { initialPlayerState, type PlayerState } from '../lib/player-machine';
import { createPlayerSession } from '../lib/player-session';
import type { SeiMessage, StageStream } from '../lib/stage-sdk';
import type { StageSession } from '../lib/stage-session';
import { NO_LAYERS, type VideoLayers } from '../lib/video-layers';
import {
  useEarlyStageSessions,
  useParticipantTokenPrefetcher,
} from './use-participant-token-prefetch';

export interface StageSessionView {
  state: PlayerState;
  /** The video stream shown now (for its stats), if any. */
  videoStream: StageStream | undefined;
  autoplayBlocked: boolean;
  /**
   * Whether the shown video's play() has settled: its first frame is on screen, or the browser
   * refused to autoplay it. What the picture does not need waits for it (decision 0091).
   */
  videoStarted: boolean;
  retry: () => void;
  /** Plays the video after the browser refused to autoplay it (a click is a user gesture). */
  resumePlayback: () => void;
  /** The video's simulcast layers (docs/product.md#quality). */
  layers: VideoLayers;
  /** Asks for a layer by its label; null: Auto. */
  preferLayer: (label: string | null) => void;
  /**
   * Each in-band message of the shown video (its flight data) until the returned function is
   * called; a new function once there is a session (subscribe again then).
   */
  onInBandMessage: (listener: (message: SeiMessage) => void) => () => void;
}

// Before the effect has made the session, the page shows the session's first state.
const noSession = () => () => undefined;
const loadingState = () => initialPlayerState;
const noLayers = () => NO_LAYERS;

/**
 * Joins the page to a stage session for `stageId`: one session per mount, left on unmount. Mount
 * it under a `key` of the stage id, so that another stream gets a fresh session and state.
 *
 * The session is the one the click on a stream card started (early-stage-sessions.ts), or made
 * here; either way in the effect, not during render: React may run an effect, clean it up and run
 * it again (StrictMode does), and a disposed session never joins again (the second run then
 * makes a new one).
 */
export function useStageSession(
  stageId: string,
  videoRef: RefObject<HTMLVideoElement | null>,
): StageSessionView {
  const [session, setSession] = useState<StageSession>();
  const [autoplayBlocked, setAutoplayBlocked] = useState(false);
  const [videoStarted, setVideoStarted] = useState(false);
  const [videoStream, setVideoStream] = useState<StageStream>();
  const prefetcher = useParticipantTokenPrefetcher();
  const earlySessions = useEarlyStageSessions();
  const state = useSyncExternalStore(
    session?.subscribe ?? noSession,
    session?.getSnapshot ?? loadingState,
  );

  const layers = useSyncExternalStore(
    session?.subscribe ?? noSession,
    session?.getLayers ?? noLayers,
  );

  useEffect(() => {
    let mounted = true;
    // The session the click on a stream card started (early-stage-sessions.ts), else a new one.
    const session = earlySessions?.take(stageId) ?? createPlayerSession(stageId, prefetcher);
    // From now on the session's video goes here, the video it shows already at once.
    session.showIn({
      onVideoTrack: (track, stream) => {
        const video = videoRef.current;
        if (!video) return;
        setVideoStream(stream);
        setAutoplayBlocked(false);
        setVideoStarted(false);
        void attachVideoTrack(video, track).then((outcome) => {
          if (!mounted) return;
          setAutoplayBlocked(outcome === 'autoplay-blocked');
          setVideoStarted(true);
        });
      },
      onVideoRemoved: () => {
        if (mounted) setVideoStream(undefined);
      },
    });
    // The session is made here, not during render (see above), and the page subscribes to it
    // through this state: setting it in the effect is the point, once per mount.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setSession(session);
    session.start();
    return () => {
      mounted = false;
      session.dispose();
    };
  }, [stageId, videoRef, prefetcher, earlySessions]);

  const retry = useCallback(() => session?.retry(), [session]);
  const preferLayer = useCallback((label: string | null) => session?.preferLayer(label), [session]);
  const onInBandMessage = useCallback(
    (listener: (message: SeiMessage) => void) =>
      session ? session.onInBandMessage(listener) : () => undefined,
    [session],
  );

  const resumePlayback = useCallback(() => {
    const video = videoRef.current;
    if (!video) return;
    void playVideo(video).then((outcome) => setAutoplayBlocked(outcome === 'autoplay-blocked'));
  }, [videoRef]);

  return {
    state,
    videoStream,
    autoplayBlocked,
    videoStarted,
    retry,
    resumePlayback,
    layers,
    preferLayer,
    onInBandMessage,
  };
}
