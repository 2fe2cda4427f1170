/**
 * The flight data over a recording (docs/product.md#flight-data, decision 0096), composed here
 * from the recordings' API and the flight-data feature's HUD: each segment's data on the player's
 * media timeline (the Recordings page: ms from the span's start, a segment at its `offsetMs`; the
 * rewind: ms from its feed's anchor, a segment at its start).
 */
import { useMemo } from 'react';
import { PlaybackFlightHud } from '@/features/flight-data/components/playback-flight-hud';
import type { RecordedFlightSegment } from '@/features/flight-data/lib/recorded-flight-loader';
import { getFlightData } from '@/features/recordings/api/flight-data';
import type { RecordedSpan } from '@/features/recordings/api/recordings';
import type { FeedSegment } from '@/features/recordings/lib/rewind-timeline';

/** Over the Recordings page's player of `span`. */
export function RecordingFlightData({
  stageId,
  span,
  video,
}: {
  stageId: string;
  span: RecordedSpan;
  video: HTMLVideoElement;
}) {
  const segments = useMemo(
    (): RecordedFlightSegment[] =>
      span.segments.map((segment) => ({
        key: segment.name,
        startMs: segment.offsetMs,
        durationMs: segment.durationMs,
        load: (signal) => getFlightData(stageId, span, segment.name, signal),
      })),
    [stageId, span],
  );
  return <PlaybackFlightHud video={video} segments={segments} />;
}

/** Over the live player's rewind picture, whose media time 0 is `anchorMs` (wall clock). */
export function RewindFlightData({
  stageId,
  segments: feedSegments,
  anchorMs,
  video,
  onAnnounce,
}: {
  stageId: string;
  segments: readonly FeedSegment[];
  anchorMs: number;
  video: HTMLVideoElement;
  onAnnounce?: (text: string) => void;
}) {
  const segments = useMemo(
    (): RecordedFlightSegment[] =>
      feedSegments.map((segment) => ({
        // The segment being written keeps its data's name once finished: known by its start.
        key: `${segment.span.span}@${segment.startMs}`,
        startMs: segment.startMs - anchorMs,
        durationMs: segment.durationMs,
        load: (signal) => getFlightData(stageId, segment.span, segment.name, signal),
      })),
    [stageId, feedSegments, anchorMs],
  );
  return <PlaybackFlightHud video={video} segments={segments} onAnnounce={onAnnounce} />;
}
