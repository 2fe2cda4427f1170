import { useEffect, useSyncExternalStore } from 'react';
import type { FlightReading, FlightReadingSource } from '../lib/flight-reading';
import type { RecordedFlightData } from '../lib/recorded-flight-data';

/** What the HUD shows now, from a live or a recorded source. */
export function useFlightReading(source: FlightReadingSource): FlightReading {
  return useSyncExternalStore(source.subscribe, source.getSnapshot);
}

/**
 * Tells a recording's flight data which instant is on screen: the media time of each frame the
 * video presents (`requestVideoFrameCallback`), or where a browser has no such callback, the
 * video's time as it plays and after each seek.
 */
export function useShownMediaTime(
  recorded: RecordedFlightData | undefined,
  video: HTMLVideoElement | null,
): void {
  useEffect(() => {
    if (!recorded || !video) return;
    const showCurrentTime = () => recorded.show(video.currentTime * 1000);
    showCurrentTime();
    // Not in every browser, whatever the DOM types say.
    const perFrame: boolean = 'requestVideoFrameCallback' in video;
    if (perFrame) {
      let request = 0;
      const onFrame: VideoFrameRequestCallback = (_now, frame) => {
        recorded.show(frame.mediaTime * 1000);
        request = video.requestVideoFrameCallback(onFrame);
      };
      request = video.requestVideoFrameCallback(onFrame);
      return () => video.cancelVideoFrameCallback(request);
    }
    const events = ['timeupdate', 'seeked', 'loadeddata'] as const;
    for (const event of events) video.addEventListener(event, showCurrentTime);
    return () => {
      for (const event of events) video.removeEventListener(event, showCurrentTime);
    };
  }, [recorded, video]);
}
