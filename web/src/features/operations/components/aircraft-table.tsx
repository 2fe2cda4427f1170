import { Activity, VideoOff } from 'lucide-react';
import { fillText } from '@/config/ui-text';
import { operationsText } from '@/config/ui-text-operations';
import type { AircraftOperations } from '../api/operations';
import { formatBitrate, formatDuration, formatLocalTime } from '../lib/format';

const CELL = 'px-1.5 py-3 sm:px-4';

/** On air or off, in words and an icon of its own: never by colour alone. */
function StateBadge({ onAir }: { onAir: boolean }) {
  return onAir ? (
    <span className="inline-flex items-center gap-1.5 rounded-full bg-emerald-500/15 whitespace-nowrap px-2 py-0.5 font-medium text-emerald-300 ring-1 ring-emerald-500/40">
      <Activity aria-hidden="true" className="hidden size-3.5 shrink-0 sm:block" />
      {operationsText.onAir}
    </span>
  ) : (
    <span className="inline-flex items-center gap-1.5 rounded-full bg-slate-800 whitespace-nowrap px-2 py-0.5 font-medium text-slate-300 ring-1 ring-slate-600 ring-dashed">
      <VideoOff aria-hidden="true" className="hidden size-3.5 shrink-0 sm:block" />
      {operationsText.offAir}
    </span>
  );
}

/** Each aircraft's state, since when, its publisher's bitrate and its viewers. */
export function AircraftTable({
  aircraft,
  nowMs,
}: {
  aircraft: readonly AircraftOperations[];
  nowMs: number;
}) {
  const { columns } = operationsText;
  return (
    // Scrolls sideways rather than squeeze on the narrowest phones; a keyboard can scroll it too.
    <div
      role="region"
      aria-labelledby="operations-aircraft-caption"
      tabIndex={0}
      className="overflow-x-auto rounded-xl border border-slate-800 bg-slate-900/60 focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
    >
      <table className="w-full text-left text-sm text-slate-200">
        <caption
          id="operations-aircraft-caption"
          className="px-1.5 pt-3 pb-1 text-left text-base font-semibold text-white sm:px-4"
        >
          {operationsText.aircraftCaption}
        </caption>
        <thead className="border-b border-slate-800 text-xs text-slate-400 sm:tracking-wide sm:uppercase">
          <tr>
            <th scope="col" className={CELL}>
              {columns.aircraft}
            </th>
            <th scope="col" className={CELL}>
              {columns.state}
            </th>
            <th scope="col" className={CELL}>
              {columns.since}
            </th>
            <th scope="col" className={`${CELL} text-right`}>
              {columns.bitrate}
            </th>
            <th scope="col" className={`${CELL} text-right`}>
              {columns.viewers}
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-800">
          {aircraft.map((entry) => {
            const sinceMs = entry.since === null ? undefined : Date.parse(entry.since);
            return (
              <tr key={entry.aircraft} data-on-air={entry.onAir}>
                <th scope="row" className={`${CELL} font-mono font-semibold text-white`}>
                  {entry.aircraft}
                </th>
                <td className={CELL}>
                  <StateBadge onAir={entry.onAir} />
                </td>
                <td className={CELL}>
                  {sinceMs === undefined ? (
                    <span className="text-slate-400">{operationsText.unknownSince}</span>
                  ) : (
                    <>
                      <time dateTime={entry.since ?? undefined} className="block tabular-nums">
                        {formatLocalTime(sinceMs, nowMs)}
                      </time>
                      <span className="block text-xs text-slate-400">
                        {fillText(operationsText.sinceFor, {
                          duration: formatDuration(nowMs - sinceMs),
                        })}
                      </span>
                    </>
                  )}
                </td>
                <td className={`${CELL} text-right tabular-nums`}>
                  {entry.onAir && entry.bitrate !== null
                    ? formatBitrate(entry.bitrate)
                    : operationsText.noFigure}
                </td>
                <td className={`${CELL} text-right tabular-nums`}>{entry.viewers}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
