import { fillText } from '@/config/ui-text';
import { recordingsText } from '@/config/ui-text-recordings';
import { utcTime, type RecordedSpan } from '../api/recordings';
import { useSegmentPreview } from '../hooks/use-segment-preview';
import { segmentAt, type FeedSegment } from '../lib/rewind-timeline';

/** The box's width, px: a 16:9 picture of 160 × 90 and its time. */
const BOX_PX = 168;

interface TimelinePreviewProps {
  stageId: string;
  atMs: number;
  /** The span and preview picture there, where it was recorded and a picture was made. */
  span: RecordedSpan | undefined;
  preview: string | undefined;
  recorded: boolean;
  /** Where it is across the track (0 to 1), to place the box over it. */
  fraction: number;
}

/**
 * The time under the pointer or the keyboard's cursor, above the track, with the segment's
 * picture where it has one (docs/product.md#recordings). Hidden from screen readers: the
 * slider's value text says the same.
 */
export function TimelinePreview({
  stageId,
  atMs,
  span,
  preview,
  recorded,
  fraction,
}: TimelinePreviewProps) {
  const picture = useSegmentPreview(stageId, span, preview);
  // Centred over the instant, kept inside the track (in CSS, so a resize needs no measuring).
  const left = `clamp(0px, calc(${(fraction * 100).toFixed(4)}% - ${BOX_PX / 2}px), calc(100% - ${BOX_PX}px))`;
  return (
    <div
      aria-hidden="true"
      data-testid="timeline-preview"
      className="pointer-events-none absolute bottom-full z-10 mb-2 rounded-lg border border-slate-700 bg-slate-950/95 p-1 text-center shadow-lg"
      style={{ left, width: `${BOX_PX}px` }}
    >
      {picture !== undefined && (
        <img
          src={picture}
          alt=""
          className="mb-1 aspect-video w-full rounded bg-black object-cover"
        />
      )}
      <p className="font-mono text-xs text-white">
        {fillText(recordingsText.timeline.previewTime, { time: utcTime(atMs) })}
      </p>
      {!recorded && (
        <p className="text-xs text-slate-400">{recordingsText.timeline.previewNotRecorded}</p>
      )}
    </div>
  );
}

/**
 * The time under the pointer or the focused scrubber's value, with the segment's preview picture
 * where it has one (the Recordings page's box, decision 0084), over the scrubber.
 */
export function ScrubberPreview({
  stageId,
  segments,
  writingEndMs,
  atMs,
  fraction,
}: {
  stageId: string;
  segments: FeedSegment[];
  writingEndMs: number;
  atMs: number;
  fraction: number;
}) {
  const segment = segmentAt(segments, atMs, writingEndMs);
  return (
    <TimelinePreview
      stageId={stageId}
      atMs={atMs}
      span={segment?.span}
      preview={segment?.preview}
      recorded={segment !== undefined}
      fraction={fraction}
    />
  );
}
