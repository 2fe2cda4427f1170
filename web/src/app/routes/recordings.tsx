import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { paths } from '@/config/paths';
import { fillText, uiText } from '@/config/ui-text';
import { recordingsText } from '@/config/ui-text-recordings';
import { PageHeader } from '@/components/layout/page-header';
import { useDocumentTitle } from '@/lib/use-document-title';
import {
  DownloadBusy,
  downloadSpan,
  getRecordings,
  utcTime,
  type RecordedSpan,
  type Recordings,
} from '@/features/recordings/api/recordings';
import { RecordingPlayer } from '@/features/recordings/components/recording-player';
import { BackIcon, DownloadIcon, LiveIcon, PlayIcon } from '@/features/recordings/components/icons';

const BUTTON =
  'inline-flex items-center gap-1.5 rounded-lg border border-slate-700 bg-slate-900 px-3 py-1.5 text-sm font-medium text-slate-100 transition hover:border-sky-500/60 hover:text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none';

type DownloadState =
  | { state: 'idle' }
  | { state: 'preparing'; receivedBytes: number }
  | { state: 'busy'; retryAfterSeconds: number }
  | { state: 'failed' };

type Loaded =
  { state: 'loading' } | { state: 'failed' } | { state: 'ready'; recordings: Recordings };

/** The recorded spans per aircraft, by time of day in UTC, to play or download (docs/product.md#recordings). */
export function RecordingsRoute() {
  useDocumentTitle(recordingsText.documentTitle);
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [playing, setPlaying] = useState<{ stageId: string; span: RecordedSpan }>();
  const [download, setDownload] = useState<DownloadState>({ state: 'idle' });

  useEffect(() => {
    const abort = new AbortController();
    getRecordings(abort.signal).then(
      (recordings) => setLoaded({ state: 'ready', recordings }),
      () => {
        if (!abort.signal.aborted) setLoaded({ state: 'failed' });
      },
    );
    return () => abort.abort();
  }, []);

  const times = (span: RecordedSpan) => ({
    start: utcTime(span.startMs),
    end: utcTime(span.endMs),
  });

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
      {playing && (
        <section aria-label={playing.stageId} className="mb-8 max-w-4xl">
          <RecordingPlayer
            key={`${playing.stageId}-${playing.span.span}-${playing.span.startMs}`}
            stageId={playing.stageId}
            span={playing.span}
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
            {spans.length === 0 ? (
              <p className="text-slate-400">{recordingsText.noneForAircraft}</p>
            ) : (
              <ul className="grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-3">
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
                        onClick={() => setPlaying({ stageId, span })}
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
                          onClick={() => {
                            setDownload({ state: 'preparing', receivedBytes: 0 });
                            downloadSpan(stageId, span, (receivedBytes) =>
                              setDownload({ state: 'preparing', receivedBytes }),
                            ).then(
                              () => setDownload({ state: 'idle' }),
                              (error: unknown) =>
                                setDownload(
                                  error instanceof DownloadBusy
                                    ? { state: 'busy', retryAfterSeconds: error.retryAfterSeconds }
                                    : { state: 'failed' },
                                ),
                            );
                          }}
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
