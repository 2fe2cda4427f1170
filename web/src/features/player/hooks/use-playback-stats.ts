import { useEffect, useRef, useState, type RefObject } from 'react';
import type { ConnectionQuality, PlaybackFigures } from '../lib/playback-stats';
import type { PlaybackStatsReader } from '../lib/playback-stats-reader';
import type { StageStream } from '../lib/stage-sdk';

export interface PlaybackReading {
  figures: PlaybackFigures;
  quality: ConnectionQuality;
}

// The reader and the figures' arithmetic are a chunk of their own, fetched when the video comes:
// the first load carries only what the first picture needs (decision 0091). Their first reading
// is a second later anyway.
const loadReader = () =>
  Promise.all([import('../lib/playback-stats-reader'), import('../lib/playback-stats')]);

/**
 * The live figures of the video stream shown in `videoRef`, and the connection quality they say,
 * read every second while there is one (playback-stats-reader.ts); frame by frame only while
 * `frameDetail` (the live stats are open). Undefined until the first reading and whenever there
 * is no stream (or the reader's chunk could not be fetched).
 */
export function usePlaybackStats(
  videoRef: RefObject<HTMLVideoElement | null>,
  stream: StageStream | undefined,
  frameDetail: boolean,
): PlaybackReading | undefined {
  const [reading, setReading] = useState<PlaybackReading>();
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
      setReading(undefined);
      return;
    }
    let gone = false;
    let current: PlaybackStatsReader | undefined;
    loadReader().then(
      ([{ PlaybackStatsReader }, { connectionQuality }]) => {
        if (gone) return;
        current = new PlaybackStatsReader({
          video,
          stream,
          onFigures: (figures) => setReading({ figures, quality: connectionQuality(figures) }),
          frameDetail: detail.current,
        });
        reader.current = current;
      },
      () => undefined, // no figures, and no quality badge: the picture plays on
    );
    return () => {
      gone = true;
      current?.stop();
      reader.current = undefined;
    };
  }, [videoRef, stream]);

  return reading;
}
