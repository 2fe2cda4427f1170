import { useEffect, useState, type RefObject } from 'react';
import { FrameSampler } from '../lib/frame-sampler';
import { playbackFigures, readReceiveSample, type PlaybackFigures } from '../lib/playback-stats';
import type { StageStream } from '../lib/stage-sdk';

/** How often the figures are read and shown. */
export const STATS_INTERVAL_MS = 1_000;

/**
 * The live figures of the video stream shown in `videoRef`, read every second while there is
 * one: the stream's `requestRTCStats()` (public SDK API) and the element's frame metadata.
 * Undefined until the first reading and whenever there is no stream.
 */
export function usePlaybackStats(
  videoRef: RefObject<HTMLVideoElement | null>,
  stream: StageStream | undefined,
): PlaybackFigures | undefined {
  const [figures, setFigures] = useState<PlaybackFigures>();

  useEffect(() => {
    const video = videoRef.current;
    if (!stream || !video) {
      setFigures(undefined);
      return;
    }
    const sampler = new FrameSampler(video);
    let previous: ReturnType<typeof readReceiveSample>;
    let active = true;
    let reading = false;
    const read = async () => {
      if (reading) return; // a slow getStats never piles up
      reading = true;
      try {
        const report = await stream.requestRTCStats();
        if (!active) return;
        const sample = report && readReceiveSample(report);
        const frames = sampler.take();
        if (!sample) return;
        setFigures(playbackFigures(previous, sample, frames));
        previous = sample;
      } catch {
        // A stream that is going away has no stats; the next stream starts afresh.
      } finally {
        reading = false;
      }
    };
    const timer = setInterval(() => void read(), STATS_INTERVAL_MS);
    return () => {
      active = false;
      clearInterval(timer);
      sampler.stop();
    };
  }, [videoRef, stream]);

  return figures;
}
