import { fillText } from '@/config/ui-text';
import { recordingsText } from '@/config/ui-text-recordings';
import { utcTime } from '../api/recordings';
import type { Clip } from '../lib/clip';

const text = recordingsText.timeline;

/** What the marks make: the clip's times, and why it is shorter than marked where it is. */
export function ClipSummary({
  clip,
  marks,
}: {
  clip: Clip | undefined;
  marks: { start?: number; end?: number };
}) {
  if (clip === undefined) {
    if (marks.start === undefined && marks.end === undefined) return null;
    return (
      <span className="text-sm text-slate-300">
        {marks.start !== undefined
          ? fillText(text.clipOneStart, { start: utcTime(marks.start) })
          : fillText(text.clipOneEnd, { end: utcTime(marks.end ?? 0) })}
      </span>
    );
  }
  if (clip.kind === 'nothing') {
    return (
      <span role="status" className="text-sm text-amber-200">
        {fillText(text.clipNothing, { start: utcTime(clip.fromMs), end: utcTime(clip.toMs) })}
      </span>
    );
  }
  return (
    <span role="status" className="text-sm text-slate-200">
      <span className="font-mono">
        {fillText(text.clip, { start: utcTime(clip.fromMs), end: utcTime(clip.toMs) })}
      </span>
      {clip.cut !== undefined && (
        <span className="block text-amber-200">
          {fillText(clip.cut === 'span' ? text.clipCutAtSpan : text.clipCutAtHour, {
            end: utcTime(clip.toMs),
          })}
        </span>
      )}
    </span>
  );
}
