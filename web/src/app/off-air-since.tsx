/**
 * Under the player's 'Waiting for video from {streamId}': since when the aircraft has been off air
 * (docs/product.md#when-there-is-no-picture), from one `GET /api/operations` when the notice
 * shows. Nothing when the API does not know, says the aircraft is on air (its publisher left less
 * than the off-air grace ago), or cannot be asked.
 */
import { useEffect, useState } from 'react';
import { fillText } from '@/config/ui-text';
import { operationsText } from '@/config/ui-text-operations';
import { getOperations } from '@/features/operations/api/operations';
import { useNow } from '@/features/operations/hooks/use-now';
import { formatDuration, formatLocalTime } from '@/features/operations/lib/format';

export function OffAirSince({ streamId }: { streamId: string }) {
  const [sinceMs, setSinceMs] = useState<number>();
  const nowMs = useNow(15_000);
  useEffect(() => {
    const abort = new AbortController();
    getOperations(undefined, abort.signal).then(
      (snapshot) => {
        const entry = snapshot.aircraft.find((each) => each.aircraft === streamId);
        if (entry && !entry.onAir && entry.since !== null) setSinceMs(Date.parse(entry.since));
      },
      () => undefined,
    );
    return () => abort.abort();
  }, [streamId]);
  if (sinceMs === undefined) return null;
  return (
    <p className="text-sm text-slate-300">
      {fillText(operationsText.offAirSince, { time: formatLocalTime(sinceMs, nowMs) })}{' '}
      {/* The overlay is a status: a duration renewed every few seconds is not read out again. */}
      <span aria-hidden="true">
        {fillText(operationsText.offAirFor, { duration: formatDuration(nowMs - sinceMs) })}
      </span>
    </p>
  );
}
