/**
 * Rewind in the live player (docs/product.md#rewind, decision 0088): 'Rewind 30 seconds', a
 * scrubber over the last hour, the keys, and 'Go live'. Going back plays the aircraft's recording
 * (recording-feed.ts) in a video laid over the live one, which stays joined and playing underneath
 * (muted), so 'Go live' only takes the recording away. With Amazon IVS, whose recordings are
 * HLS, hls-feed.ts plays them instead, up to IVS_RECORDING_DELAY_MS before live. The app places it
 * in the player (`StreamPlayer`'s `rewind`), giving it the live video's box to lay the recording
 * over.
 */
import { useCallback, useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import { fillText } from '@/config/ui-text';
import { rewindText } from '@/config/ui-text-rewind';
import { getRecordings, utcTime, type RecordedSpan } from '../api/recordings';
import { readSegment } from '../api/growing-segment';
import { HlsFeed } from '../lib/hls-feed';
import { RecordingFeed } from '../lib/recording-feed';
import {
  formatBehind,
  hlsRanges,
  landingIn,
  IVS_RECORDING_DELAY_MS,
  newestRecorded,
  recordedRanges,
  REWIND_WINDOW_MS,
  growingSegmentPlays,
  windowHlsSpans,
  windowSegments,
  type FeedSegment,
  type WallRange,
} from '../lib/rewind-timeline';
import { RewindIcon } from './icons';
import { ScrubberPreview } from './timeline-preview';
import { useRewindKeys } from './use-rewind-keys';

/** How often the list is read while live (whether there is anything to rewind to). */
const LIVE_LIST_MS = 10_000;
/** How often the behind-live figure and the scrubber move. */
const TICK_MS = 250;
/**
 * What of the segment being written is taken as recorded before its bytes are read: the recorder
 * has a frame in the file tens of ms after it arrives (decision 0085) and the feed reads what
 * grew every 400 ms, so up to about a second before now.
 */
const WRITING_LAG_MS = 1_000;
const STEP_S = { rewind: 30, key: 10, arrow: 5 } as const;
/** A list read longer ago than this is read again before a step back lands past its newest. */
const FRESH_LIST_MS = 1_000;

export interface LiveRewindProps {
  streamId: string;
  /** The live video's box: the recording is laid over it. */
  videoBox: HTMLElement | null;
  liveVideo: RefObject<HTMLVideoElement | null>;
  /** Whether the picture is the recording (the player relabels what measures the live one). */
  onBehindChange: (behind: boolean) => void;
  /** Says it to screen readers, in the player's own polite live region (one a page). */
  announce: (text: string) => void;
  /**
   * Drawn over the recording's picture (the app's flight data HUD, decision 0096): its video,
   * the segments listed, and the feed's anchor (media time 0, wall clock).
   */
  overlay?: (playing: RewindPlaying & { segments: FeedSegment[] }) => ReactNode;
}

/** The local stage's recording being played: its video, and where its media time 0 is. */
export interface RewindPlaying {
  video: HTMLVideoElement;
  anchorMs: number;
}

type Mode = { behind: false } | { behind: true; targetMs: number };

/** What of the window the API lists: the local stage's segments, or IVS's HLS spans. */
interface Recorded {
  segments: FeedSegment[];
  hlsSpans: RecordedSpan[];
}

/** One of the two feeds (recording-feed.ts, hls-feed.ts): what the bar asks of it. */
interface RewindFeed {
  readonly shownMs: number;
  seek(wallMs: number): void;
  dispose(): void;
}

export function LiveRewind({
  streamId,
  videoBox,
  liveVideo,
  onBehindChange,
  announce,
  overlay,
}: LiveRewindProps) {
  const [segments, setSegments] = useState<FeedSegment[]>([]);
  const [hlsSpans, setHlsSpans] = useState<RecordedSpan[]>([]);
  const [mode, setMode] = useState<Mode>({ behind: false });
  const [nowMs, setNowMs] = useState(() => Date.now());
  const [shownMs, setShownMs] = useState<number>();
  const [failed, setFailed] = useState(false);
  const [playing, setPlaying] = useState<RewindPlaying>();
  /** Where the pointer is over the scrubber (its preview shows there), and whether it has focus. */
  const [pointer, setPointer] = useState<{ fraction: number; atMs: number }>();
  const [scrubberFocused, setScrubberFocused] = useState(false);
  const recordingRef = useRef<HTMLVideoElement>(null);
  const feedRef = useRef<RewindFeed>(undefined);
  const liveMutedRef = useRef(true);
  const [recordingMuted, setRecordingMuted] = useState(true);
  /** When the list was last read (Date.now()), or never (-Infinity). */
  const listedAtRef = useRef(Number.NEGATIVE_INFINITY);
  /** The list being read again before a step back from live lands (`goTo`). */
  const rereadRef = useRef<AbortController>(undefined);
  useEffect(() => () => rereadRef.current?.abort(), []);
  const segmentsRef = useRef(segments);
  const hlsSpansRef = useRef(hlsSpans);
  useEffect(() => {
    segmentsRef.current = segments;
    hlsSpansRef.current = hlsSpans;
  });

  const listRecorded = useCallback(
    async (signal: AbortSignal): Promise<Recorded> => {
      // The hour and a minute's slack: what the scrubber spans, not the day.
      const sinceMs = Date.now() - REWIND_WINDOW_MS - 60_000;
      const { aircraft } = await getRecordings(signal, streamId, sinceMs);
      listedAtRef.current = Date.now();
      const mine = aircraft.find((entry) => entry.stageId === streamId);
      const nowMs = Date.now();
      return {
        segments: mine
          ? windowSegments(mine, nowMs, (mimeType) =>
              growingSegmentPlays(mimeType, navigator.userAgent),
            )
          : [],
        hlsSpans: mine ? windowHlsSpans(mine, nowMs) : [],
      };
    },
    [streamId],
  );
  const list = useCallback(
    async (signal: AbortSignal) => (await listRecorded(signal)).segments,
    [listRecorded],
  );

  // While live: read the list now and then, for whether (and how far) there is anything to go to.
  useEffect(() => {
    if (mode.behind) return;
    const abort = new AbortController();
    const read = () =>
      listRecorded(abort.signal).then(
        (recorded) => {
          setSegments(recorded.segments);
          setHlsSpans(recorded.hlsSpans);
        },
        () => undefined /* the button keeps its last state */,
      );
    void read();
    const timer = window.setInterval(() => void read(), LIVE_LIST_MS);
    return () => {
      abort.abort();
      window.clearInterval(timer);
    };
  }, [mode.behind, listRecorded]);

  useEffect(() => {
    const timer = window.setInterval(() => {
      setNowMs(Date.now());
      const feed = feedRef.current;
      if (feed) setShownMs(feed.shownMs);
    }, TICK_MS);
    return () => window.clearInterval(timer);
  }, []);

  // With Amazon IVS the recordings are HLS (and trail live further); else the local stage's.
  const ivs = hlsSpans.length > 0;
  const writingEndMs = Math.max(0, nowMs - WRITING_LAG_MS);
  const ranges: WallRange[] = ivs
    ? hlsRanges(hlsSpans, nowMs)
    : recordedRanges(segments, writingEndMs);
  const newest = newestRecorded(ranges);
  const windowStart = nowMs - REWIND_WINDOW_MS;
  const canRewind = newest !== undefined;
  const behind = mode.behind;

  // The recording's feed lives while the picture is the recording.
  useEffect(() => {
    const video = recordingRef.current;
    if (!behind || !video) return;
    const onFailed = (error: unknown) => {
      console.warn('rewind:', error);
      setFailed(true);
    };
    const feed: HlsFeed | RecordingFeed =
      hlsSpansRef.current.length > 0
        ? new HlsFeed(
            video,
            hlsSpansRef.current,
            { list: async (signal) => (await listRecorded(signal)).hlsSpans },
            onFailed,
            setHlsSpans,
          )
        : new RecordingFeed(
            video,
            Date.now() - REWIND_WINDOW_MS - 60_000,
            segmentsRef.current,
            {
              read: (segment, fromByte, signal) => readSegment(streamId, segment, fromByte, signal),
              list,
            },
            onFailed,
            setSegments,
          );
    feedRef.current = feed;
    if (feed instanceof RecordingFeed) setPlaying({ video, anchorMs: feed.anchorMs });
    return () => {
      feed.dispose();
      feedRef.current = undefined;
      setPlaying(undefined);
    };
  }, [behind, streamId, list, listRecorded]);

  const targetMs = mode.behind ? mode.targetMs : undefined;
  useEffect(() => {
    if (targetMs !== undefined) feedRef.current?.seek(targetMs);
  }, [targetMs]);

  useEffect(() => onBehindChange(behind), [behind, onBehindChange]);

  const goLive = () => {
    rereadRef.current?.abort();
    const recording = recordingRef.current;
    setMuted(liveVideo.current, recording ? recording.muted : liveMutedRef.current);
    setMode({ behind: false });
    setShownMs(undefined);
    setFailed(false);
    announce(rewindText.wentLive);
  };

  /** Goes to `targetMs` in `known` ranges (goTo's landing, once the list is as fresh as it needs). */
  const landAt = (targetMs: number, toNewest: boolean, known: readonly WallRange[]) => {
    const landing = landingIn(targetMs, known) ?? (toNewest ? newestRecorded(known) : undefined);
    if (landing === undefined) {
      if (mode.behind) goLive();
      return;
    }
    const live = liveVideo.current;
    if (!mode.behind && live) {
      liveMutedRef.current = live.muted;
      setRecordingMuted(live.muted);
      setMuted(live, true);
    }
    setMode({ behind: true, targetMs: landing });
    setShownMs(landing);
    announce(fillText(rewindText.wentBack, { behind: formatBehind(Date.now() - landing) }));
  };

  /**
   * Goes to `wallMs`, or to the next recorded instant after it. Past the newest recorded instant a
   * key or button going on goes live; the scrubber and a step back (`toNewest`) stop at the newest
   * recorded instant (with Amazon IVS, 10 s before now is not on S3 yet: `j` from live lands there).
   * A step back from live past the newest instant a list of up to LIVE_LIST_MS ago names reads the
   * list again first: where only finished segments play, one more is there every few seconds. A
   * later step, or leaving the player, drops that reading.
   */
  const goTo = (wallMs: number, toNewest = false) => {
    rereadRef.current?.abort();
    const target = Math.max(wallMs, windowStart);
    const stale = Date.now() - listedAtRef.current > FRESH_LIST_MS;
    const pastNewest = landingIn(target, ranges) === undefined;
    if (!toNewest || mode.behind || ivs || !stale || !pastNewest) {
      landAt(target, toNewest, ranges);
      return;
    }
    const reread = new AbortController();
    rereadRef.current = reread;
    listRecorded(reread.signal).then(
      (recorded) => {
        if (reread.signal.aborted) return;
        setSegments(recorded.segments);
        landAt(target, true, recordedRanges(recorded.segments, Date.now() - WRITING_LAG_MS));
      },
      () => {
        if (!reread.signal.aborted) landAt(target, true, ranges);
      },
    );
  };

  const from = shownMs ?? nowMs;
  const togglePause = () => {
    const video = recordingRef.current;
    if (!mode.behind || !video) return;
    if (video.paused) void video.play().catch(() => undefined);
    else video.pause();
  };
  useRewindKeys({
    back: (seconds) => canRewind && goTo(from - seconds * 1000, true),
    on: (seconds) => mode.behind && goTo(from + seconds * 1000),
    oldest: () => ranges[0] && goTo(ranges[0][0]),
    live: () => (mode.behind ? goLive() : rereadRef.current?.abort()),
    togglePause,
    steps: STEP_S,
  });

  const behindMs = Math.max(0, nowMs - from);
  const behindText = formatBehind(behindMs);
  const scrubberMax = Math.max(newest ?? nowMs, windowStart + 1000);
  const focusedAt = {
    atMs: from,
    fraction: (Math.min(from, scrubberMax) - windowStart) / (scrubberMax - windowStart),
  };
  const percent = (ms: number) =>
    `${(100 * (Math.min(Math.max(ms, windowStart), scrubberMax) - windowStart)) / (scrubberMax - windowStart)}%`;

  return (
    <section
      aria-label={rewindText.controls}
      className="mt-3 flex flex-wrap items-center gap-x-3 gap-y-2 rounded-xl bg-slate-900/80 px-3 py-2 ring-1 ring-slate-800"
    >
      <button
        type="button"
        onClick={() => goTo(from - STEP_S.rewind * 1000, true)}
        disabled={!canRewind}
        aria-describedby={canRewind ? undefined : 'rewind-why'}
        aria-keyshortcuts="j"
        className="inline-flex items-center gap-1.5 rounded-lg border border-slate-700 bg-slate-950 px-3 py-1.5 text-sm font-medium text-slate-100 transition hover:border-sky-500/60 focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none disabled:cursor-not-allowed disabled:opacity-50"
      >
        <RewindIcon />
        {rewindText.rewind}
      </button>
      <div
        className="relative min-w-40 flex-1"
        onPointerMove={(event) => {
          const box = event.currentTarget.getBoundingClientRect();
          if (box.width <= 0) return;
          const fraction = Math.min(1, Math.max(0, (event.clientX - box.left) / box.width));
          setPointer({ fraction, atMs: windowStart + fraction * (scrubberMax - windowStart) });
        }}
        onPointerLeave={() => setPointer(undefined)}
      >
        {canRewind && (pointer ?? (scrubberFocused ? focusedAt : undefined)) && (
          <ScrubberPreview
            stageId={streamId}
            segments={segments}
            writingEndMs={writingEndMs}
            {...(pointer ?? focusedAt)}
          />
        )}
        <div
          aria-hidden="true"
          className="absolute inset-x-0 top-1/2 h-1.5 -translate-y-1/2 rounded bg-slate-700"
        >
          {ranges.map(([start, end]) => (
            <span
              key={start}
              className="absolute inset-y-0 rounded bg-sky-500/70"
              style={{ left: percent(start), right: `calc(100% - ${percent(end)})`, minWidth: 3 }}
            />
          ))}
        </div>
        <input
          type="range"
          min={windowStart}
          max={scrubberMax}
          // Any instant, not whole seconds from the window's start: the right end is the newest.
          step="any"
          value={Math.min(from, scrubberMax)}
          disabled={!canRewind}
          aria-label={fillText(rewindText.scrubber, { streamId })}
          aria-valuetext={fillText(rewindText.scrubberValue, {
            time: utcTime(from),
            behind: behindText,
          })}
          onChange={(event) => goTo(Number(event.currentTarget.value), true)}
          onFocus={() => setScrubberFocused(true)}
          onBlur={() => setScrubberFocused(false)}
          onKeyDown={(event) => {
            // The page's steps, not the slider's own 1 s: ←/→ 5 s, Home the oldest, End live.
            const step = { ArrowLeft: -STEP_S.arrow, ArrowRight: STEP_S.arrow }[event.key];
            if (step !== undefined) goTo(from + step * 1000, step < 0);
            else if (event.key === 'Home' && ranges[0]) goTo(ranges[0][0]);
            else if (event.key === 'End') goLive();
            else return;
            event.preventDefault();
          }}
          className="relative w-full cursor-pointer appearance-none bg-transparent accent-sky-400 disabled:cursor-not-allowed"
        />
      </div>
      <p className="text-sm tabular-nums text-slate-300" data-testid="rewind-behind">
        {mode.behind ? fillText(rewindText.behind, { time: behindText }) : rewindText.live}
      </p>
      {mode.behind && (
        <button
          type="button"
          onClick={goLive}
          aria-keyshortcuts="End"
          className="inline-flex items-center gap-1.5 rounded-lg bg-red-600 px-3 py-1.5 text-sm font-semibold text-white transition hover:bg-red-500 focus-visible:ring-2 focus-visible:ring-red-300 focus-visible:outline-none"
        >
          <span aria-hidden="true" className="size-2 rounded-full bg-white" />
          {rewindText.goLive}
        </button>
      )}
      {!canRewind && (
        <p id="rewind-why" className="w-full text-xs text-slate-400">
          {fillText(rewindText.nothingRecorded, { streamId })}
        </p>
      )}
      {ivs && (
        <p className="w-full text-xs text-slate-400" data-testid="rewind-delay">
          {fillText(rewindText.ivsDelay, { seconds: String(IVS_RECORDING_DELAY_MS / 1000) })}
        </p>
      )}
      {failed && (
        <p role="alert" className="w-full text-sm text-red-300">
          {rewindText.failed}
        </p>
      )}
      {mode.behind &&
        videoBox &&
        createPortal(
          <div className="absolute inset-0 z-20 bg-black">
            <video
              ref={recordingRef}
              muted={recordingMuted}
              autoPlay
              playsInline
              onClick={togglePause}
              aria-label={fillText(rewindText.video, { streamId, behind: behindText })}
              data-testid="rewind-video"
              className="size-full object-contain"
            />
            <p className="pointer-events-none absolute bottom-3 left-3 rounded-md bg-slate-950/85 px-2 py-1 font-mono text-xs text-amber-300 ring-1 ring-amber-500/40">
              {fillText(rewindText.behind, { time: behindText })}
            </p>
            {playing && overlay?.({ ...playing, segments })}
          </div>,
          videoBox,
        )}
    </section>
  );
}

/** The live video's sound, off while the recording plays over it and back as the viewer left it. */
function setMuted(video: HTMLVideoElement | null, muted: boolean): void {
  if (video) video.muted = muted;
}
