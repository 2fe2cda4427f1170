import { useEffect, useRef, useState, type RefObject } from 'react';
import type { PlaybackFigures } from '../lib/playback-stats';
import { PlaybackStatsReader } from '../lib/playback-stats-reader';
import type { StageStream } from '../lib/stage-sdk';

/**
 * The live figures of the video stream shown in `videoRef`, read every second while there is
 * one (playback-stats-reader.ts); frame by frame only while `frameDetail` (the live stats are
 * open). Undefined until the first reading and whenever there is no stream.
 */
export function usePlaybackStats(
  videoRef: RefObject<HTMLVideoElement | null>,
  stream: StageStream | undefined,
  frameDetail: boolean,
): PlaybackFigures | undefined {
  const [figures, setFigures] = useState<PlaybackFigures>();
  const reader = useRef<PlaybackStatsReader>(undefined);
  // The reader a new stream gets starts with the detail asked for now.
  const detail = useRef(frameDetail);

  useEffect(() => {
    detail.current = frameDetail;
    reader.current?.setFrameDetail(frameDetail);
  }, [frameDetail]);

  useEffect(() => {
    const video = videoRef.current;
    if (!stream || !video) {
      setFigures(undefined);
      return;
    }
    const current = new PlaybackStatsReader({
      video,
      stream,
      onFigures: setFigures,
      frameDetail: detail.current,
    });
    reader.current = current;
    return () => {
      current.stop();
      reader.current = undefined;
    };
  }, [videoRef, stream]);

  return figures;
}
