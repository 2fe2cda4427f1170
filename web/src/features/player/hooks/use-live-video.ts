import { useRef, useState, type RefObject } from 'react';
import type { ConnectionQuality, PlaybackFigures } from '../lib/playback-stats';
import { usePlaybackStats } from './use-playback-stats';
import { useStageSession, type StageSessionView } from './use-stage-session';

export interface LiveVideoView extends StageSessionView {
  /** The `<video>` the session plays in (`LiveVideo` renders it). */
  videoRef: RefObject<HTMLVideoElement | null>;
  figures: PlaybackFigures | undefined;
  /** While connected, from the last second's figures; undefined before the first reading. */
  quality: ConnectionQuality | undefined;
  /**
   * The first picture is on screen (its play() settled), or the session said there is none to wait
   * for; true from then on for the mount, whatever the next publisher's video does. What the first
   * frame does not need waits for it (decision 0093).
   */
  firstPictureSettled: boolean;
}

/**
 * One stream's live video, as the player and a Watch all tile both show it: the stage session,
 * its video element and its figures (docs/product.md#player). `frameDetail` while the live stats
 * are open: frames are then watched one by one, for glass to glass. Mount under `key={streamId}`.
 */
export function useLiveVideo(
  streamId: string,
  { frameDetail }: { frameDetail: boolean },
): LiveVideoView {
  const videoRef = useRef<HTMLVideoElement>(null);
  const session = useStageSession(streamId, videoRef);
  // Read once the picture is there: the reader's chunk and its first reading do not compete with
  // the first frame (decision 0091).
  const reading = usePlaybackStats(
    videoRef,
    session.videoStarted ? session.videoStream : undefined,
    frameDetail,
  );
  const figures = reading?.figures;
  const quality = session.state.status === 'connected' ? reading?.quality : undefined;
  const [firstPictureSettled, setFirstPictureSettled] = useState(false);
  const noVideo = session.state.status === 'connected' && session.state.waitingForVideo;
  if (!firstPictureSettled && (session.videoStarted || noVideo)) setFirstPictureSettled(true);
  return { ...session, videoRef, figures, quality, firstPictureSettled };
}
