/**
 * One aircraft's timeline (docs/product.md#recordings, decision 0086): the last 24 h with "now"
 * at its right end, zoomed to an hour or five minutes and panned, recorded time and gaps drawn to
 * scale. The track is a slider: the pointer or the keyboard's cursor shows the time there (and the
 * segment's preview picture where it has one); a click, or Enter, plays from that instant. Two
 * marks make a clip to download (lib/clip.ts).
 */
import { useEffect, useMemo, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { fillText } from '@/config/ui-text';
import { recordingsText } from '@/config/ui-text-recordings';
import { utcTime, type RecordedSpan } from '../api/recordings';
import { clipBetween, type Clip } from '../lib/clip';
import {
  DAY_MS,
  ZOOM_LEVELS,
  fractionOf,
  instantAt,
  panned,
  playbackAt,
  recordedBars,
  recordedPieces,
  pieceAt,
  ticks,
  viewAround,
  viewShowing,
  zoomLevel,
  type TimelineView,
  type ZoomId,
} from '../lib/timeline-scale';
import { DownloadIcon } from './icons';
import { ClipSummary } from './clip-summary';
import { TimelinePreview } from './timeline-preview';

const text = recordingsText.timeline;
const BUTTON =
  'inline-flex items-center gap-1.5 rounded-lg border border-slate-700 bg-slate-900 px-3 py-1.5 text-sm font-medium text-slate-100 transition hover:border-sky-500/60 hover:text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none disabled:opacity-50';
/** A zoom button while its zoom is shown. */
const PRESSED = BUTTON.replace('border-slate-700 bg-slate-900', 'border-sky-400 bg-sky-800');
/** Tick labels need about this much room each. */
const TICK_ROOM_PX = 64;

export interface ClipToDownload {
  span: RecordedSpan;
  fromMs: number;
  toMs: number;
}

interface AircraftTimelineProps {
  stageId: string;
  spans: readonly RecordedSpan[];
  /** The timeline's right end. */
  nowMs: number;
  /** The instant chosen on this timeline (its cursor). */
  cursorMs: number;
  onCursor: (ms: number) => void;
  onPlay: (ms: number) => void;
  onDownloadClip: (clip: ClipToDownload) => void;
  /** A download is under way: one at a time. */
  downloading: boolean;
  /** Changed (a new `id`) to show an instant up close: the page opened on one. */
  reveal?: { atMs: number; id: number };
}

function timeOf(ms: number) {
  return utcTime(ms);
}

/** The width the track has, followed as the window resizes (600 where it cannot be measured). */
function useWidth(element: HTMLElement | null): number {
  const [width, setWidth] = useState(600);
  useEffect(() => {
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry && entry.contentRect.width > 0) setWidth(entry.contentRect.width);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

export function AircraftTimeline({
  stageId,
  spans,
  nowMs,
  cursorMs,
  onCursor,
  onPlay,
  onDownloadClip,
  downloading,
  reveal,
}: AircraftTimelineProps) {
  const pieces = useMemo(() => recordedPieces(spans), [spans]);
  const [zoom, setZoom] = useState<ZoomId>('day');
  const [view, setView] = useState<TimelineView>(() => viewAround(nowMs, DAY_MS, nowMs));
  const [hoverMs, setHoverMs] = useState<number>();
  const [focused, setFocused] = useState(false);
  const [marks, setMarks] = useState<{ start?: number; end?: number }>({});
  const [track, setTrack] = useState<HTMLDivElement | null>(null);
  const width = useWidth(track);
  const windowMs = view.endMs - view.startMs;

  // A new reveal (the page opened on an instant) shows it up close, at the hour's zoom.
  const [revealed, setRevealed] = useState<number>();
  if (reveal !== undefined && reveal.id !== revealed) {
    setRevealed(reveal.id);
    setZoom('hour');
    setView(viewAround(reveal.atMs, zoomLevel('hour').windowMs, nowMs));
  }

  const earliest = nowMs - DAY_MS;
  const clamp = (ms: number) => Math.min(Math.max(ms, earliest), nowMs);

  const moveCursor = (ms: number) => {
    const to = clamp(ms);
    setView((current) => viewShowing(current, to, nowMs));
    onCursor(to);
  };

  const zoomTo = (id: ZoomId) => {
    const level = zoomLevel(id);
    const centre =
      cursorMs >= view.startMs && cursorMs <= view.endMs
        ? cursorMs
        : (view.startMs + view.endMs) / 2;
    setZoom(id);
    setView(viewAround(centre, level.windowMs, nowMs));
  };
  const zoomBy = (steps: number) => {
    const index = ZOOM_LEVELS.findIndex((level) => level.id === zoom) + steps;
    const level = ZOOM_LEVELS[Math.min(Math.max(index, 0), ZOOM_LEVELS.length - 1)]!;
    zoomTo(level.id);
  };

  const mark = (which: 'start' | 'end') => {
    setMarks((current) => {
      const next = { ...current, [which]: cursorMs };
      // Given in the wrong order, the marks swap; on the same instant, the other one goes.
      if (next.start !== undefined && next.end !== undefined) {
        if (next.start === next.end) return { [which]: cursorMs };
        if (next.start > next.end) return { start: next.end, end: next.start };
      }
      return next;
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const step = zoomLevel(zoom).stepMs;
    const by = (steps: number) => moveCursor(cursorMs + steps * step);
    const handled = (() => {
      switch (event.key) {
        case 'ArrowLeft':
        case 'ArrowDown':
          return (by(event.shiftKey ? -10 : -1), true);
        case 'ArrowRight':
        case 'ArrowUp':
          return (by(event.shiftKey ? 10 : 1), true);
        case 'PageDown':
          return (by(-10), true);
        case 'PageUp':
          return (by(10), true);
        case 'Home':
          return (moveCursor(earliest), true);
        case 'End':
          return (moveCursor(nowMs), true);
        case '+':
        case '=':
          return (zoomBy(1), true);
        case '-':
        case '_':
          return (zoomBy(-1), true);
        case 'Enter':
          return (onPlay(cursorMs), true);
        case 'i':
        case 'I':
          return (mark('start'), true);
        case 'o':
        case 'O':
          return (mark('end'), true);
        default:
          return false;
      }
    })();
    if (handled) event.preventDefault();
  };

  const instantUnder = (event: MouseEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    return clamp(instantAt(view, box.width > 0 ? (event.clientX - box.left) / box.width : 0));
  };

  const bars = recordedBars(pieces, view, windowMs / Math.max(width, 1));
  const tickMarks = ticks(view, Math.max(2, Math.floor(width / TICK_ROOM_PX)));
  const recordedAt = (ms: number) => playbackAt(spans, ms) !== undefined;
  const valueText = fillText(recordedAt(cursorMs) ? text.recorded : text.notRecorded, {
    time: timeOf(cursorMs),
  });
  const previewMs = hoverMs ?? (focused ? cursorMs : undefined);
  const previewPiece = previewMs === undefined ? undefined : pieceAt(pieces, previewMs);
  const previewSpan = previewPiece && spans[previewPiece.spanIndex];
  const clip: Clip | undefined =
    marks.start !== undefined && marks.end !== undefined
      ? clipBetween(spans, marks.start, marks.end)
      : undefined;
  const percent = (fraction: number) => `${(fraction * 100).toFixed(4)}%`;
  const inView = (ms: number) => ms >= view.startMs && ms <= view.endMs;

  return (
    <div data-testid={`timeline-${stageId}`}>
      <div className="mb-2 flex flex-wrap items-center gap-2">
        <div role="group" aria-label={text.zoom} className="flex gap-1">
          {ZOOM_LEVELS.map((level) => (
            <button
              key={level.id}
              type="button"
              className={zoom === level.id ? PRESSED : BUTTON}
              aria-pressed={zoom === level.id}
              onClick={() => zoomTo(level.id)}
            >
              {text[level.id]}
            </button>
          ))}
        </div>
        <div className="flex gap-1">
          <button
            type="button"
            className={BUTTON}
            disabled={view.startMs <= earliest}
            onClick={() => setView(panned(view, -0.5, nowMs))}
          >
            {text.earlier}
          </button>
          <button
            type="button"
            className={BUTTON}
            disabled={view.endMs >= nowMs}
            onClick={() => setView(panned(view, 0.5, nowMs))}
          >
            {text.later}
          </button>
        </div>
      </div>
      <div className="relative">
        {previewMs !== undefined && (
          <TimelinePreview
            stageId={stageId}
            atMs={previewMs}
            span={previewSpan}
            preview={previewSpan?.segments[previewPiece?.segmentIndex ?? -1]?.preview}
            recorded={recordedAt(previewMs)}
            fraction={fractionOf(view, previewMs)}
          />
        )}
        <div
          ref={setTrack}
          role="slider"
          tabIndex={0}
          aria-label={fillText(text.label, { stageId })}
          aria-valuemin={Math.round(earliest / 1000)}
          aria-valuemax={Math.round(nowMs / 1000)}
          // A moment asked for outside the day (an old link) stays the cursor, but the value is in range.
          aria-valuenow={Math.round(clamp(cursorMs) / 1000)}
          aria-valuetext={valueText}
          onKeyDown={onKeyDown}
          onFocus={() => setFocused(true)}
          onBlur={() => setFocused(false)}
          onPointerDown={(event) => {
            // A drag scrubs: the pointer stays the track's until it is let go.
            if (event.pointerType !== 'mouse')
              event.currentTarget.setPointerCapture(event.pointerId);
          }}
          onPointerMove={(event) => setHoverMs(instantUnder(event))}
          onPointerLeave={() => setHoverMs(undefined)}
          onPointerCancel={() => setHoverMs(undefined)}
          onClick={(event) => {
            const ms = instantUnder(event);
            onCursor(ms);
            onPlay(ms);
            setHoverMs(undefined);
          }}
          className="relative h-12 cursor-pointer touch-pan-y overflow-hidden rounded-lg bg-slate-800 select-none focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
        >
          {bars.map((bar) => (
            <div
              key={bar.left}
              data-testid="recorded-bar"
              className="absolute inset-y-2 bg-sky-600"
              // At least 3 px, kept inside the track: a few seconds at the day's zoom, recorded
              // just now, still shows at its right end.
              style={{
                left: `min(${percent(bar.left)}, calc(100% - 3px))`,
                width: percent(bar.width),
                minWidth: '3px',
              }}
            />
          ))}
          {clip?.kind === 'clip' && (
            <div
              className="absolute inset-y-0 border-x-2 border-amber-300 bg-amber-300/25"
              style={{
                left: percent(Math.max(0, fractionOf(view, clip.fromMs))),
                width: percent(
                  Math.max(
                    0,
                    Math.min(1, fractionOf(view, clip.toMs)) -
                      Math.max(0, fractionOf(view, clip.fromMs)),
                  ),
                ),
              }}
            />
          )}
          {marks.start !== undefined && clip === undefined && inView(marks.start) && (
            <div
              className="absolute inset-y-0 w-0.5 bg-amber-300"
              style={{ left: percent(fractionOf(view, marks.start)) }}
            />
          )}
          {marks.end !== undefined && clip === undefined && inView(marks.end) && (
            <div
              className="absolute inset-y-0 w-0.5 bg-amber-300"
              style={{ left: percent(fractionOf(view, marks.end)) }}
            />
          )}
          {hoverMs !== undefined && (
            <div
              className="absolute inset-y-0 w-px bg-slate-300/70"
              style={{ left: percent(fractionOf(view, hoverMs)) }}
            />
          )}
          {inView(cursorMs) && (
            <div
              data-testid="timeline-cursor"
              className="absolute inset-y-0 w-0.5 -translate-x-1/2 bg-white"
              style={{ left: percent(fractionOf(view, cursorMs)) }}
            />
          )}
        </div>
        <div aria-hidden="true" className="relative mt-1 h-5 text-xs text-slate-400">
          {tickMarks.map((ms) => {
            const at = fractionOf(view, ms);
            // The last label would run past the right end where "now" is; the first past the left.
            if (at > 0.94 || at < 0.04) return null;
            return (
              <span
                key={ms}
                className="absolute -translate-x-1/2 font-mono"
                style={{ left: percent(at) }}
              >
                {timeOf(ms).slice(0, 5)}
              </span>
            );
          })}
          {view.endMs >= nowMs && <span className="absolute right-0">{text.now}</span>}
        </div>
      </div>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <button type="button" className={BUTTON} onClick={() => mark('start')}>
          {text.markStart}
        </button>
        <button type="button" className={BUTTON} onClick={() => mark('end')}>
          {text.markEnd}
        </button>
        <ClipSummary clip={clip} marks={marks} />
        {clip?.kind === 'clip' && clip.span.hls === undefined && (
          <button
            type="button"
            className={BUTTON}
            disabled={downloading}
            onClick={() =>
              onDownloadClip({ span: clip.span, fromMs: clip.fromMs, toMs: clip.toMs })
            }
          >
            <DownloadIcon />
            {text.downloadClip}
          </button>
        )}
      </div>
    </div>
  );
}
