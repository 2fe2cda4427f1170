import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { paths } from '@/config/paths';
import { fillText, uiText } from '@/config/ui-text';
import { recordingsText } from '@/config/ui-text-recordings';
import { PageHeader } from '@/components/layout/page-header';
import { useDocumentTitle } from '@/lib/use-document-title';
import {
  DownloadBusy,
  downloadRecording,
  downloadSpan,
  getRecordings,
  utcTime,
  type RecordedSpan,
  type Recordings,
} from '@/features/recordings/api/recordings';
import { AircraftTimeline } from '@/features/recordings/components/aircraft-timeline';
import { RecordingPlayer } from '@/features/recordings/components/recording-player';
import { formatMoment, momentHref, parseMoment } from '@/features/recordings/lib/moment';
import { nextSpanAfter, playbackAt } from '@/features/recordings/lib/timeline-scale';
import { BackIcon, DownloadIcon, LiveIcon, PlayIcon } from '@/features/recordings/components/icons';
import {
  LiveRewind as FeatureLiveRewind,
  type LiveRewindProps,
} from '@/features/recordings/components/live-rewind';
import { RecordingFlightData, RewindFlightData } from '@/app/recording-flight-data';

const BUTTON =
  'inline-flex items-center gap-1.5 rounded-lg border border-slate-700 bg-slate-900 px-3 py-1.5 text-sm font-medium text-slate-100 transition hover:border-sky-500/60 hover:text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none';

type DownloadState =
  | { state: 'idle' }
  | { state: 'preparing'; receivedBytes: number }
  | { state: 'busy'; retryAfterSeconds: number }
  | { state: 'failed' };

type Loaded =
  | { state: 'loading' }
  | { state: 'failed' }
  /** `nowMs`: when the list came, the timelines' right end. */
  | { state: 'ready'; recordings: Recordings; nowMs: number };

/** What plays: a span from an offset; `id` tells one press from the next on the same instant. */
interface Playing {
  stageId: string;
  span: RecordedSpan;
  offsetMs: number;
  id: number;
}

/** What the page says about the instant asked for (the URL's, or a click's). */
type Notice =
  | { kind: 'unknownAircraft'; stageId: string }
  | { kind: 'bad'; text: string }
  | { kind: 'nothing'; stageId: string; atMs: number; next?: RecordedSpan };

/** The URL's moment as one text, to tell the page's own URL from one opened or edited. */
const urlKey = (stageId: string | undefined, t: string | null) => `${stageId ?? ''} ${t ?? ''}`;

/** Where an aircraft's cursor starts: its newest recording's start, or now. */
function firstCursor(spans: readonly RecordedSpan[], nowMs: number): number {
  const newest = spans.reduce<RecordedSpan | undefined>(
    (found, span) => (found && found.startMs >= span.startMs ? found : span),
    undefined,
  );
  return Math.max(newest?.startMs ?? nowMs, nowMs - 24 * 3_600_000);
}

/**
 * Every aircraft's timeline of the last 24 h and its recorded spans, by time of day in UTC, to
 * play from any instant, share it as a URL (`/recordings/{aircraft}?t=`), or download a clip or a
 * span (docs/product.md#recordings, decision 0086).
 */
// The live player's rewind comes in this page's chunk: the two share the recordings' code, and a
// chunk of that code alone would also take the app's API helpers out of its first load.
// The flight data over the rewind's picture is composed here (features do not import each other).
export function LiveRewind(props: LiveRewindProps) {
  return (
    <FeatureLiveRewind
      {...props}
      overlay={({ video, anchorMs, segments }) => (
        <RewindFlightData
          stageId={props.streamId}
          video={video}
          anchorMs={anchorMs}
          segments={segments}
          onAnnounce={props.announce}
        />
      )}
    />
  );
}

export function RecordingsRoute() {
  useDocumentTitle(recordingsText.documentTitle);
  const { stageId: routeStageId } = useParams();
  // The query read with the browser's own URLSearchParams: react-router's useSearchParams would
  // join the app's first load (the lazy chunk takes react-router from it), past its budget.
  const t = new URLSearchParams(useLocation().search).get('t');
  const navigate = useNavigate();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [playing, setPlaying] = useState<Playing>();
  const [download, setDownload] = useState<DownloadState>({ state: 'idle' });
  const [cursors, setCursors] = useState<Record<string, number>>({});
  const [notice, setNotice] = useState<Notice>();
  const [reveal, setReveal] = useState<{ stageId: string; atMs: number; id: number }>();
  // The URL the page last read, and the last it wrote itself: another one (opened, edited, gone
  // back to) is read anew. (The router moves to a URL written in a transition of its own, so a
  // render may still show the URL before it.)
  const [urlRead, setUrlRead] = useState<string>();
  const [urlWritten, setUrlWritten] = useState<string>();
  const playerRef = useRef<HTMLElement>(null);

  useEffect(() => {
    const abort = new AbortController();
    getRecordings(abort.signal).then(
      (recordings) => setLoaded({ state: 'ready', recordings, nowMs: Date.now() }),
      () => {
        if (!abort.signal.aborted) setLoaded({ state: 'failed' });
      },
    );
    return () => abort.abort();
  }, []);

  // The player in view when something starts playing (from a timeline far down, on a phone).
  const playingId = playing?.id;
  useEffect(() => {
    if (playingId !== undefined) playerRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, [playingId]);

  const times = (span: RecordedSpan) => ({
    start: utcTime(span.startMs),
    end: utcTime(span.endMs),
  });

  /** Plays `stageId` from `atMs`, or says nothing was recorded then (and what comes next). */
  const playFrom = (stageId: string, spans: readonly RecordedSpan[], atMs: number) => {
    const at = playbackAt(spans, atMs);
    if (!at) {
      setNotice({ kind: 'nothing', stageId, atMs, next: nextSpanAfter(spans, atMs) });
      return;
    }
    setNotice(undefined);
    setPlaying((last) => ({ stageId, ...at, id: (last?.id ?? 0) + 1 }));
  };

  /** The instant chosen on a timeline: its cursor, and the URL (replaced: no history per move). */
  const choose = (stageId: string, atMs: number) => {
    setCursors((current) => ({ ...current, [stageId]: atMs }));
    const t = formatMoment(atMs);
    setUrlWritten(urlKey(stageId, t));
    void navigate(momentHref(stageId, t), { replace: true });
  };

  // A URL opened or edited: its aircraft's timeline shows its moment up close and plays from it.
  const currentUrl = urlKey(routeStageId, t);
  if (loaded.state === 'ready' && currentUrl !== urlRead && currentUrl === urlWritten) {
    setUrlRead(currentUrl);
  } else if (loaded.state === 'ready' && currentUrl !== urlRead) {
    setUrlRead(currentUrl);
    const aircraft = loaded.recordings.aircraft.find((each) => each.stageId === routeStageId);
    const moment = parseMoment(t);
    if (routeStageId === undefined) setNotice(undefined);
    else if (!aircraft) setNotice({ kind: 'unknownAircraft', stageId: routeStageId });
    else if (moment.kind === 'bad') setNotice({ kind: 'bad', text: moment.text });
    else if (moment.kind === 'instant') {
      setCursors((current) => ({ ...current, [routeStageId]: moment.ms }));
      setReveal({ stageId: routeStageId, atMs: moment.ms, id: (reveal?.id ?? 0) + 1 });
      playFrom(routeStageId, aircraft.spans, moment.ms);
    }
  }

  const startDownload = (run: (onProgress: (receivedBytes: number) => void) => Promise<void>) => {
    setDownload({ state: 'preparing', receivedBytes: 0 });
    run((receivedBytes) => setDownload({ state: 'preparing', receivedBytes })).then(
      () => setDownload({ state: 'idle' }),
      (error: unknown) =>
        setDownload(
          error instanceof DownloadBusy
            ? { state: 'busy', retryAfterSeconds: error.retryAfterSeconds }
            : { state: 'failed' },
        ),
    );
  };

  return (
    <>
      <PageHeader
        title={recordingsText.title}
        subtitle={recordingsText.subtitle}
        action={
          <Link to={paths.home.href()} className={BUTTON}>
            <BackIcon />
            {uiText.player.back}
          </Link>
        }
      />
      {/* The player at most 896 px wide: on a large screen the list stays in view below it. */}
      {(notice?.kind === 'unknownAircraft' || notice?.kind === 'bad') && (
        <p role="alert" className="mb-4 text-sm text-red-300">
          {notice.kind === 'bad'
            ? fillText(recordingsText.moment.bad, { t: notice.text })
            : fillText(recordingsText.moment.unknownAircraft, { stageId: notice.stageId })}
        </p>
      )}
      {playing && (
        <section ref={playerRef} aria-label={playing.stageId} className="mb-8 max-w-4xl">
          <RecordingPlayer
            key={`${playing.stageId}-${playing.span.span}-${playing.span.startMs}-${playing.id}`}
            stageId={playing.stageId}
            span={playing.span}
            startOffsetMs={playing.offsetMs}
            overlay={(video) => (
              <RecordingFlightData stageId={playing.stageId} span={playing.span} video={video} />
            )}
          />
          <div className="mt-3 flex flex-wrap gap-2">
            <Link to={paths.player.href(playing.stageId)} className={BUTTON}>
              <LiveIcon />
              {recordingsText.live}
            </Link>
          </div>
        </section>
      )}
      {download.state === 'preparing' && (
        <p role="status" className="mb-4 text-sm text-slate-300">
          {fillText(recordingsText.downloadPreparing, {
            size: (download.receivedBytes / 1_000_000).toFixed(1),
          })}
        </p>
      )}
      {download.state === 'busy' && (
        <p role="alert" className="mb-4 text-sm text-red-300">
          {fillText(recordingsText.downloadBusy, { seconds: String(download.retryAfterSeconds) })}
        </p>
      )}
      {download.state === 'failed' && (
        <p role="alert" className="mb-4 text-sm text-red-300">
          {recordingsText.downloadFailed}
        </p>
      )}
      {loaded.state === 'loading' && (
        <p role="status" className="text-slate-400">
          {recordingsText.loading}
        </p>
      )}
      {loaded.state === 'failed' && (
        <p role="alert" className="text-red-300">
          {recordingsText.loadFailed}
        </p>
      )}
      {loaded.state === 'ready' && loaded.recordings.aircraft.length === 0 && (
        <p className="text-slate-400">{recordingsText.none}</p>
      )}
      {loaded.state === 'ready' &&
        loaded.recordings.aircraft.map(({ stageId, spans }) => (
          <section key={stageId} aria-labelledby={`rec-${stageId}`} className="mb-8">
            <h2 id={`rec-${stageId}`} className="mb-3 text-lg font-semibold text-white">
              {stageId}
            </h2>
            <AircraftTimeline
              key={stageId}
              stageId={stageId}
              spans={spans}
              nowMs={loaded.nowMs}
              cursorMs={cursors[stageId] ?? firstCursor(spans, loaded.nowMs)}
              onCursor={(atMs) => choose(stageId, atMs)}
              onPlay={(atMs) => playFrom(stageId, spans, atMs)}
              downloading={download.state === 'preparing'}
              onDownloadClip={({ span, fromMs, toMs }) =>
                startDownload((onProgress) =>
                  downloadRecording(stageId, span, { fromMs, toMs }, onProgress),
                )
              }
              reveal={reveal?.stageId === stageId ? reveal : undefined}
            />
            {notice?.kind === 'nothing' && notice.stageId === stageId && (
              <div role="status" className="mt-3 flex flex-wrap items-center gap-2 text-sm">
                <span className="text-amber-200">
                  {fillText(recordingsText.moment.nothingAt, { time: utcTime(notice.atMs) })}
                </span>
                {notice.next && (
                  <button
                    type="button"
                    className={BUTTON}
                    onClick={() => {
                      const startMs = notice.next?.startMs ?? notice.atMs;
                      choose(stageId, startMs);
                      playFrom(stageId, spans, startMs);
                    }}
                  >
                    <PlayIcon />
                    {fillText(recordingsText.moment.playNext, {
                      time: utcTime(notice.next.startMs),
                    })}
                  </button>
                )}
              </div>
            )}
            {spans.length === 0 ? (
              <p className="mt-3 text-slate-400">{recordingsText.noneForAircraft}</p>
            ) : (
              <ul className="mt-4 grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-3">
                {spans.map((span) => (
                  <li
                    key={`${span.span}-${span.startMs}`}
                    className="flex flex-wrap items-center justify-between gap-2 rounded-xl border border-slate-800 bg-slate-900/60 p-3"
                  >
                    <span className="font-mono text-sm text-slate-200">
                      {fillText(recordingsText.span, times(span))}
                    </span>
                    <span className="flex gap-2">
                      <button
                        type="button"
                        className={BUTTON}
                        aria-label={fillText(recordingsText.play, times(span))}
                        onClick={() => {
                          choose(stageId, span.startMs);
                          playFrom(stageId, spans, span.startMs);
                        }}
                      >
                        <PlayIcon />
                      </button>
                      {/* IVS's HLS recordings stay in their bucket: played, not downloaded. */}
                      {span.hls === undefined && (
                        <button
                          type="button"
                          className={BUTTON}
                          aria-label={fillText(recordingsText.download, times(span))}
                          // One download at a time: the API allows an account one at once.
                          disabled={download.state === 'preparing'}
                          onClick={() =>
                            startDownload((onProgress) => downloadSpan(stageId, span, onProgress))
                          }
                        >
                          <DownloadIcon />
                        </button>
                      )}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        ))}
    </>
  );
}
