/**
 * The one player of recordings (decision 0073): the local stage's segments through Media Source
 * Extensions. Each segment is a whole file (WebM or fMP4) starting on a key frame, placed at its
 * offset with `timestampOffset`; they are fetched in order, a little ahead of the playhead, and
 * from the segment a seek lands in. Seeking with the video's own controls or the keyboard: ←/→
 * 5 s, Home/End, Space or K to play and pause.
 */
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { fillText } from '@/config/ui-text';
import { recordingsText } from '@/config/ui-text-recordings';
import { getSegment, utcTime, type RecordedSpan } from '../api/recordings';

/** Fetched ahead of the playhead. */
const AHEAD_S = 20;

interface RecordingPlayerProps {
  stageId: string;
  span: RecordedSpan;
}

export function RecordingPlayer({ stageId, span }: RecordingPlayerProps) {
  const videoRef = useRef<HTMLVideoElement>(null);
  // The page keys this component by span: a new span starts with a fresh state.
  const [failed, setFailed] = useState(false);
  const supported =
    typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported(span.mimeType);

  useEffect(() => {
    const video = videoRef.current;
    if (!video || !supported) return;
    const abort = new AbortController();
    const source = new MediaSource();
    const objectUrl = URL.createObjectURL(source);
    video.src = objectUrl;
    const segments = span.segments;
    const loaded = new Set<number>();
    let next = 0;
    let busy = false;

    const indexAt = (seconds: number) => {
      const ms = seconds * 1000;
      const found = segments.findIndex((s) => ms < s.offsetMs + s.durationMs);
      return found < 0 ? segments.length - 1 : found;
    };

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
        const onTime = () => void pump(buffer);
        const onSeeking = () => {
          const index = indexAt(video.currentTime);
          if (!loaded.has(index)) next = index;
          void pump(buffer);
        };
        video.addEventListener('timeupdate', onTime, { signal: abort.signal });
        video.addEventListener('seeking', onSeeking, { signal: abort.signal });
        void pump(buffer);
      },
      { once: true },
    );
    return () => {
      abort.abort();
      video.removeAttribute('src');
      video.load();
      URL.revokeObjectURL(objectUrl);
    };
  }, [stageId, span, supported]);

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
      <video
        ref={videoRef}
        controls
        playsInline
        onKeyDown={onKeyDown}
        aria-label={fillText(recordingsText.player, {
          streamId: stageId,
          start: utcTime(span.startMs),
        })}
        data-testid="recording-video"
        className="aspect-video w-full rounded-xl bg-black focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
      />
      {(failed || !supported) && (
        <p role="alert" className="mt-2 text-sm text-red-300">
          {recordingsText.playFailed}
        </p>
      )}
    </div>
  );
}
