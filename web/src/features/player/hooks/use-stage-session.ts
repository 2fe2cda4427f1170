import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { getParticipantToken } from '../api/get-participant-token';
import { attachVideoTrack, playVideo } from '../lib/attach-video-track';
import { getClientId } from '../lib/client-id';
import { firstFetchUsing } from '../lib/participant-token-prefetch';
import { initialPlayerState, type PlayerState } from '../lib/player-machine';
import { getStageSdk } from '../lib/stage-sdk';
import { StageSession } from '../lib/stage-session';
import { useParticipantTokenPrefetcher } from './participant-token-prefetch';

export const AUTOPLAY_BLOCKED_MESSAGE = 'Browser blocked autoplay. Please click the video to play.';

export interface StageSessionView {
  state: PlayerState;
  autoplayBlocked: boolean;
  retry: () => void;
  /** Plays the video after the browser refused to autoplay it (a click is a user gesture). */
  resumePlayback: () => void;
}

/**
 * Joins the page to a stage session for `stageId`: one session per mount, left on unmount. Mount
 * it under a `key` of the stage id, so that another stream gets a fresh session and state.
 */
export function useStageSession(
  stageId: string,
  videoRef: RefObject<HTMLVideoElement | null>,
): StageSessionView {
  const [state, setState] = useState<PlayerState>(initialPlayerState);
  const [autoplayBlocked, setAutoplayBlocked] = useState(false);
  const sessionRef = useRef<StageSession | null>(null);
  const prefetcher = useParticipantTokenPrefetcher();

  useEffect(() => {
    const session = new StageSession({
      stageId,
      getSdk: getStageSdk,
      // The first join takes a token fetched ahead (decision 0040) when there is one.
      fetchParticipantToken: firstFetchUsing(prefetcher?.take(stageId), (id, signal) =>
        getParticipantToken({ stageId: id, clientId: getClientId() }, signal),
      ),
      onVideoTrack: (track) => {
        const video = videoRef.current;
        if (!video) return;
        setAutoplayBlocked(false);
        void attachVideoTrack(video, track).then((outcome) => {
          if (sessionRef.current === session) setAutoplayBlocked(outcome === 'autoplay-blocked');
        });
      },
    });
    sessionRef.current = session;
    const unsubscribe = session.subscribe(() => setState(session.getState()));
    session.start();
    return () => {
      unsubscribe();
      session.dispose();
      if (sessionRef.current === session) sessionRef.current = null;
    };
  }, [stageId, videoRef, prefetcher]);

  const retry = useCallback(() => sessionRef.current?.retry(), []);

  const resumePlayback = useCallback(() => {
    const video = videoRef.current;
    if (!video) return;
    void playVideo(video).then((outcome) => setAutoplayBlocked(outcome === 'autoplay-blocked'));
  }, [videoRef]);

  return { state, autoplayBlocked, retry, resumePlayback };
}
