import { operationsText } from '@/config/ui-text-operations';
import type { OperationsEvent } from '../api/operations';
import { formatLocalTime } from '../lib/format';

/** The newest events first, each its time, its aircraft and what happened. */
export function EventsList({
  events,
  nowMs,
}: {
  events: readonly OperationsEvent[];
  nowMs: number;
}) {
  return (
    <section aria-labelledby="operations-events" className="mt-8">
      <h2 id="operations-events" className="mb-3 text-lg font-semibold text-white">
        {operationsText.events}
      </h2>
      {events.length === 0 ? (
        <p className="text-slate-400">{operationsText.noEvents}</p>
      ) : (
        <ol className="divide-y divide-slate-800 rounded-xl border border-slate-800 bg-slate-900/60 text-sm">
          {events.map((event) => (
            <li
              key={event.id}
              className="flex flex-wrap items-baseline gap-x-3 gap-y-0.5 px-2 py-2 sm:px-4"
            >
              <time dateTime={event.time} className="text-slate-400 tabular-nums">
                {formatLocalTime(Date.parse(event.time), nowMs, true)}
              </time>
              <span className="font-mono font-semibold text-white">{event.aircraft}</span>
              <span className="text-slate-200">{event.name}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
