import { RefreshCw } from 'lucide-react';
import { operationsText } from '@/config/ui-text-operations';
import { BackToSelection } from '@/components/layout/back-to-selection';
import { PageHeader } from '@/components/layout/page-header';
import { useDocumentTitle } from '@/lib/use-document-title';
import { AircraftTable } from '@/features/operations/components/aircraft-table';
import { EventsList } from '@/features/operations/components/events-list';
import { useNow } from '@/features/operations/hooks/use-now';
import { useOperations } from '@/features/operations/hooks/use-operations';

// The player's off-air time comes in this page's chunk: the two share the operations' code, and a
// chunk of that code alone would also take the app's API helpers out of its first load.
export { OffAirSince } from '@/app/off-air-since';

const BUTTON =
  'inline-flex items-center gap-2 rounded-lg border border-slate-700 bg-slate-900 px-3 py-1.5 text-sm font-medium text-slate-100 transition hover:border-sky-500/60 hover:text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none';

/**
 * The operator's page (docs/product.md#operations): every aircraft's on-air state, since when,
 * bitrate and viewers, and the last events, kept up to date by a long poll (decision 0099).
 * Read-only. Screen readers hear an aircraft going on or off air, nothing else.
 */
export function OperationsRoute() {
  useDocumentTitle(operationsText.documentTitle);
  const { snapshot, receivedAtMs, status, announcement, retry } = useOperations();
  // "for 3 min" counts on between answers (no request for it), and from each answer's arrival.
  const nowMs = Math.max(useNow(15_000), receivedAtMs);

  const retryButton = (
    <button type="button" onClick={retry} className={BUTTON}>
      <RefreshCw aria-hidden="true" className="size-4" />
      {operationsText.retry}
    </button>
  );

  return (
    <>
      <PageHeader
        title={operationsText.title}
        subtitle={operationsText.subtitle}
        action={<BackToSelection />}
      />
      <div aria-live="polite" aria-atomic="true" className="sr-only">
        <span key={announcement.id}>{announcement.text}</span>
      </div>
      {status?.kind === 'stopped' && (
        <div role="alert" className="mb-4 flex flex-wrap items-center gap-3 text-red-300">
          <p>{operationsText.signedOut}</p>
          {retryButton}
        </div>
      )}
      {status?.kind === 'unavailable' && (
        <p role="status" className="text-slate-300">
          {operationsText.unavailable}
        </p>
      )}
      {snapshot === undefined && status?.kind === 'retrying' && (
        <div role="alert" className="flex flex-wrap items-center gap-3 text-red-300">
          <p>{operationsText.loadFailed}</p>
          {retryButton}
        </div>
      )}
      {snapshot === undefined && status === undefined && (
        <p role="status" className="text-slate-400">
          {operationsText.loading}
        </p>
      )}
      {snapshot !== undefined && status?.kind === 'retrying' && (
        <div role="status" className="mb-4 flex flex-wrap items-center gap-3 text-amber-200">
          <p>{operationsText.retrying}</p>
          {retryButton}
        </div>
      )}
      {snapshot !== undefined &&
        (snapshot.aircraft.length === 0 ? (
          <p className="text-slate-400">{operationsText.noAircraft}</p>
        ) : (
          <AircraftTable aircraft={snapshot.aircraft} nowMs={nowMs} />
        ))}
      {snapshot !== undefined && <EventsList events={snapshot.events} nowMs={nowMs} />}
    </>
  );
}
