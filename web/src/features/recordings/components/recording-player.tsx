/**
 * The one player of recordings (decision 0073): the local stage's segments through Media Source
 * Extensions. Each segment is a whole file (WebM or fMP4) starting on a key frame, placed at its
 * offset with `timestampOffset`; they are fetched in order, a little ahead of the playhead, and
 * from the segment a seek lands in. With Amazon IVS, the span is HLS and hls.js plays it (loaded
 * only then: its own chunk). Seeking with the video's own controls or the keyboard: ←/→ 5 s,
 * Home/End, Space or K to play and pause. It starts at `startOffsetMs` into the span (0 unless
 * given) and plays by itself; where the browser allows no sound without a press (a shared link
 * opened), it plays muted and offers 'Turn sound on'.
 */
import {
  useCallback,
  useEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { fillText } from '@/config/ui-text';
import { recordingsText } from '@/config/ui-text-recordings';
import { getSegment, utcTime, type RecordedSpan } from '../api/recordings';
import { playHls } from '../lib/hls-playback';
import { isStalled, pastHole, rangesOf } from '../lib/buffered-holes';

/** Fetched ahead of the playhead. */
const AHEAD_S = 20;
/** How often a stalled playhead is looked at, and how long it stalls before a hole is jumped. */
const STALL_CHECK_MS = 250;
const STALL_JUMP_MS = 500;

interface RecordingPlayerProps {
  stageId: string;
  span: RecordedSpan;
  /** Where in the span to start, ms from its start (its `segments`' `offsetMs`); 0 when not given. */
  startOffsetMs?: number;
  /**
   * Drawn over the video (the app's flight data HUD, decision 0096), in a `relative` box the
   * video fills; its media time is the span's, ms from its start = `offsetMs` + time in a segment.
   */
  overlay?: (video: HTMLVideoElement) => ReactNode;
}

/**
 * Plays `video` once it has its metadata; where the browser refuses sound without a press, muted
 * (`onMuted`). Returns the stop.
 */
function playOnceLoaded(video: HTMLVideoElement, onMuted: () => void): () => void {
  let stopped = false;
  const play = () => {
    video.play().catch((error: unknown) => {
      if (stopped || !(error instanceof DOMException) || error.name !== 'NotAllowedError') return;
      video.muted = true;
      onMuted();
      void video.play().catch(() => undefined);
    });
  };
  if (video.readyState >= HTMLMediaElement.HAVE_METADATA) play();
  else video.addEventListener('loadedmetadata', play, { once: true });
  return () => {
    stopped = true;
    video.removeEventListener('loadedmetadata', play);
  };
}

export function RecordingPlayer({
  stageId,
  span,
  startOffsetMs = 0,
  overlay,
}: RecordingPlayerProps) {
  const videoRef = useRef<HTMLVideoElement>(null);
  // The video element for the overlay, once mounted.
  const [video, setVideo] = useState<HTMLVideoElement | null>(null);
  const videoElement = useCallback((element: HTMLVideoElement | null) => {
    videoRef.current = element;
    setVideo(element);
  }, []);
  // The page keys this component by span and start: a new one starts with a fresh state.
  const [failed, setFailed] = useState(false);
  const [mutedToPlay, setMutedToPlay] = useState(false);
  const startS = Math.min(Math.max(0, startOffsetMs), span.endMs - span.startMs) / 1000;
  const hls = span.hls;
  const supported =
    hls !== undefined ||
    (typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported(span.mimeType));

  useEffect(() => {
    const video = videoRef.current;
    if (!video || hls === undefined) return;
    const toStart = () => (video.currentTime = startS);
    if (startS > 0) video.addEventListener('loadedmetadata', toStart, { once: true });
    const stop = playHls(video, hls, () => setFailed(true));
    return () => {
      video.removeEventListener('loadedmetadata', toStart);
      stop();
    };
  }, [hls, startS]);

  useEffect(() => {
    const video = videoRef.current;
    if (!video || !supported) return;
    return playOnceLoaded(video, () => setMutedToPlay(true));
  }, [supported]);

  useEffect(() => {
    const video = videoRef.current;
    if (!video || !supported || hls !== undefined) return;
    const abort = new AbortController();
    const source = new MediaSource();
    const objectUrl = URL.createObjectURL(source);
    video.src = objectUrl;
    const segments = span.segments;
    const loaded = new Set<number>();
    let busy = false;

    const indexAt = (seconds: number) => {
      const ms = seconds * 1000;
      const found = segments.findIndex((s) => ms < s.offsetMs + s.durationMs);
      return found < 0 ? segments.length - 1 : found;
    };
    // The first fetch is the segment the start lies in; earlier ones only if a seek goes there.
    let next = startS > 0 ? Math.max(0, indexAt(startS)) : 0;

    const pump = async (buffer: SourceBuffer) => {
      if (busy || abort.signal.aborted) return;
      busy = true;
      try {
        while (next < segments.length && !abort.signal.aborted) {
          const segment = segments[next]!;
          if (segment.offsetMs / 1000 > video.currentTime + AHEAD_S) break;
          const index = next;
          next += 1;
          if (loaded.has(index)) continue;
          const data = await getSegment(stageId, span, segment.name, abort.signal);
          buffer.timestampOffset = segment.offsetMs / 1000;
          await new Promise<void>((resolve, reject) => {
            buffer.addEventListener('updateend', () => resolve(), { once: true });
            buffer.addEventListener('error', () => reject(new Error('append failed')), {
              once: true,
            });
            buffer.appendBuffer(data);
          });
          loaded.add(index);
        }
        if (
          next >= segments.length &&
          loaded.size === segments.length &&
          source.readyState === 'open'
        ) {
          source.endOfStream();
        }
      } catch (error) {
        if (!abort.signal.aborted) {
          console.warn('recording playback:', error);
          setFailed(true);
        }
      } finally {
        busy = false;
      }
    };

    source.addEventListener(
      'sourceopen',
      () => {
        const buffer = source.addSourceBuffer(span.mimeType);
        source.duration = (span.endMs - span.startMs) / 1000;
        // Before its metadata a video takes this as where to start (and reads it back as its
        // time, so the fetches ahead count from there).
        if (startS > 0) {
          video.currentTime = startS;
          // Where a browser did not keep it: once there is metadata, a seek.
          const keepStart = () => {
            if (Math.abs(video.currentTime - startS) > 0.5) video.currentTime = startS;
          };
          video.addEventListener('loadedmetadata', keepStart, { once: true, signal: abort.signal });
        }
        const onTime = () => void pump(buffer);
        const onSeeking = () => {
          const index = indexAt(video.currentTime);
          if (!loaded.has(index)) next = index;
          void pump(buffer);
        };
        video.addEventListener('timeupdate', onTime, { signal: abort.signal });
        video.addEventListener('seeking', onSeeking, { signal: abort.signal });
        void pump(buffer);
        // A seek that does not complete, or playback that stops, at a hole in what is appended
        // (buffered-holes.ts) moves on past it.
        let stalledSince: number | undefined;
        const watch = window.setInterval(() => {
          // Not autoplayed (played once loaded): a paused video here is the viewer's pause.
          const stalled = isStalled(video);
          if (!stalled) {
            stalledSince = undefined;
            return;
          }
          stalledSince ??= performance.now();
          if (performance.now() - stalledSince < STALL_JUMP_MS) return;
          const pending = segments
            .filter((_, index) => !loaded.has(index))
            .map((s) => [s.offsetMs / 1000, (s.offsetMs + s.durationMs) / 1000] as const);
          const to = pastHole(video.currentTime, rangesOf(video.buffered), pending);
          if (to === undefined) return;
          stalledSince = undefined;
          video.currentTime = to;
        }, STALL_CHECK_MS);
        abort.signal.addEventListener('abort', () => window.clearInterval(watch));
      },
      { once: true },
    );
    return () => {
      abort.abort();
      video.removeAttribute('src');
      video.load();
      URL.revokeObjectURL(objectUrl);
    };
  }, [stageId, span, supported, hls, startS]);

  const onKeyDown = (event: KeyboardEvent<HTMLVideoElement>) => {
    const video = event.currentTarget;
    const end = (span.endMs - span.startMs) / 1000;
    const seek = (to: number) => {
      video.currentTime = Math.min(Math.max(0, to), end);
      event.preventDefault();
    };
    if (event.key === 'ArrowLeft') seek(video.currentTime - 5);
    else if (event.key === 'ArrowRight') seek(video.currentTime + 5);
    else if (event.key === 'Home') seek(0);
    else if (event.key === 'End') seek(end);
    else if (event.key === ' ' || event.key === 'k') {
      if (video.paused) void video.play().catch(() => undefined);
      else video.pause();
      event.preventDefault();
    }
  };

  return (
    <div>
      <div className="relative">
        <video
          ref={videoElement}
          controls
          // Opened by the viewer's press on Play (or Enter on it): it plays at once, as pressed.
          autoPlay
          playsInline
          onKeyDown={onKeyDown}
          aria-label={fillText(recordingsText.player, {
            streamId: stageId,
            start: utcTime(span.startMs),
          })}
          data-testid="recording-video"
          className="aspect-video w-full rounded-xl bg-black focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
        />
        {video && overlay?.(video)}
      </div>
      {mutedToPlay && (
        <button
          type="button"
          onClick={() => {
            const video = videoRef.current;
            if (video) video.muted = false;
            setMutedToPlay(false);
          }}
          className="mt-2 rounded-lg border border-slate-700 bg-slate-900 px-3 py-1.5 text-sm font-medium text-slate-100 hover:border-sky-500/60 focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
        >
          {recordingsText.soundOn}
        </button>
      )}
      {(failed || !supported) && (
        <p role="alert" className="mt-2 text-sm text-red-300">
          {recordingsText.playFailed}
        </p>
      )}
    </div>
  );
}
