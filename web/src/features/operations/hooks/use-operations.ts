import { useEffect, useState } from 'react';
import { fillText } from '@/config/ui-text';
import { operationsText } from '@/config/ui-text-operations';
import { getOperations, type OperationsSnapshot } from '../api/operations';
import { OperationsFeed, type FeedStatus } from '../lib/operations-feed';

export interface OperationsView {
  /** The newest answer; undefined until the first. */
  snapshot: OperationsSnapshot | undefined;
  /** When it came (ms, the page's clock): durations are counted from no earlier than this. */
  receivedAtMs: number;
  status: FeedStatus | undefined;
  /** What the page's polite live region says: an aircraft going on or off air, nothing else. */
  announcement: { text: string; id: number };
  retry: () => void;
}

/** The aircraft whose on-air state differs from the last snapshot's, said as a sentence each. */
export function stateChanges(
  before: OperationsSnapshot | undefined,
  after: OperationsSnapshot,
): string[] {
  if (!before) return [];
  const was = new Map(before.aircraft.map((entry) => [entry.aircraft, entry.onAir]));
  return after.aircraft
    .filter((entry) => was.has(entry.aircraft) && was.get(entry.aircraft) !== entry.onAir)
    .map((entry) =>
      fillText(entry.onAir ? operationsText.announcedOnAir : operationsText.announcedOffAir, {
        aircraft: entry.aircraft,
      }),
    );
}

/** The operations feed while the page is open (docs/product.md#operations). */
export function useOperations(): OperationsView {
  const [snapshot, setSnapshot] = useState<{ value: OperationsSnapshot; atMs: number }>();
  const [status, setStatus] = useState<FeedStatus>();
  const [announcement, setAnnouncement] = useState({ text: '', id: 0 });
  const [feed] = useState(() => {
    let last: OperationsSnapshot | undefined;
    return new OperationsFeed({
      fetchSnapshot: getOperations,
      onSnapshot: (next) => {
        const changes = stateChanges(last, next);
        last = next;
        setSnapshot({ value: next, atMs: Date.now() });
        if (changes.length > 0) {
          setAnnouncement((said) => ({ text: changes.join('. '), id: said.id + 1 }));
        }
      },
      onStatus: setStatus,
    });
  });
  useEffect(() => {
    feed.start();
    return () => feed.stop();
  }, [feed]);
  return {
    snapshot: snapshot?.value,
    receivedAtMs: snapshot?.atMs ?? 0,
    status,
    announcement,
    retry: () => feed.retry(),
  };
}
