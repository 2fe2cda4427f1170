import { useEffect, useRef, useState } from 'react';
import { RecordedFlightLoader, type RecordedFlightSegment } from '../lib/recorded-flight-loader';
import { RecordedFlightData } from '../lib/recorded-flight-data';
import { FlightHud } from './flight-hud';

export interface PlaybackFlightHudProps {
  /** The recording's video, in a `relative` box the HUD is drawn in. */
  video: HTMLVideoElement;
  /** The segments it plays, on its media timeline. */
  segments: readonly RecordedFlightSegment[];
  onAnnounce?: ((text: string) => void) | undefined;
}

/**
 * The HUD over a recording (docs/product.md#flight-data): the figures of the frame on screen,
 * from the flight data of the segments around it (decision 0096), fetched as the picture plays
 * and seeks. Nothing is drawn where the recording has none.
 */
export function PlaybackFlightHud({ video, segments, onAnnounce }: PlaybackFlightHudProps) {
  const [store] = useState(() => new RecordedFlightData());
  const loaderRef = useRef<RecordedFlightLoader>(undefined);
  const segmentsRef = useRef(segments);

  useEffect(() => {
    const loader = new RecordedFlightLoader(store);
    loaderRef.current = loader;
    loader.setSegments(segmentsRef.current);
    const onTime = () => loader.at(video.currentTime * 1000);
    onTime();
    const events = ['timeupdate', 'seeking', 'loadedmetadata'] as const;
    for (const event of events) video.addEventListener(event, onTime);
    return () => {
      for (const event of events) video.removeEventListener(event, onTime);
      loader.dispose();
      loaderRef.current = undefined;
    };
  }, [store, video]);

  useEffect(() => {
    segmentsRef.current = segments;
    loaderRef.current?.setSegments(segments);
  }, [segments]);

  return <FlightHud mode="playback" store={store} video={video} onAnnounce={onAnnounce} />;
}
