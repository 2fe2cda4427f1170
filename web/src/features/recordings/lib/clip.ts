/**
 * A clip to download (docs/product.md#recordings, decision 0086): two marks on the timeline make
 * a stretch, and the download is one file of one span (the API remuxes one span at a time), at
 * most an hour long (the API's limit). So the clip starts at the first recorded instant from its
 * start mark and ends at its end mark, the end of that span, or an hour on, whichever is first;
 * when it was cut, it says where and why.
 */
import type { RecordedSpan } from '../api/recordings';

export const CLIP_MAX_MS = 3_600_000;

export type Clip =
  | {
      kind: 'clip';
      span: RecordedSpan;
      fromMs: number;
      toMs: number;
      /** Why it ends before the end mark: its span ended, or an hour was reached. */
      cut?: 'span' | 'hour';
    }
  | { kind: 'nothing'; fromMs: number; toMs: number };

/** The clip between two marks, given in either order. */
export function clipBetween(spans: readonly RecordedSpan[], markA: number, markB: number): Clip {
  const fromMark = Math.min(markA, markB);
  const toMark = Math.max(markA, markB);
  const span = spans
    .filter((each) => each.endMs > fromMark && each.startMs < toMark)
    .reduce<RecordedSpan | undefined>(
      (first, each) => (first && first.startMs <= each.startMs ? first : each),
      undefined,
    );
  if (!span) return { kind: 'nothing', fromMs: fromMark, toMs: toMark };
  const fromMs = Math.max(fromMark, span.startMs);
  const ends = [
    { at: toMark, cut: undefined },
    { at: span.endMs, cut: 'span' as const },
    { at: fromMs + CLIP_MAX_MS, cut: 'hour' as const },
  ];
  const end = ends.reduce((first, each) => (each.at < first.at ? each : first));
  return end.cut === undefined
    ? { kind: 'clip', span, fromMs, toMs: end.at }
    : { kind: 'clip', span, fromMs, toMs: end.at, cut: end.cut };
}
