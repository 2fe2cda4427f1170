/** How the Operations page and the player write times, durations and bitrates (docs/product.md#operations). */
import { fillText } from '@/config/ui-text';
import { operationsText } from '@/config/ui-text-operations';

/** A length of time, in its largest two units: '42 s', '3 min', '2 h 5 min', '3 d 4 h'. */
export function formatDuration(ms: number): string {
  const { duration } = operationsText;
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return fillText(duration.seconds, { seconds: String(seconds) });
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return fillText(duration.minutes, { minutes: String(minutes) });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    return fillText(duration.hours, { hours: String(hours), minutes: String(minutes % 60) });
  }
  return fillText(duration.days, {
    days: String(Math.floor(hours / 24)),
    hours: String(hours % 24),
  });
}

/** Video bits a second: '1.2 Mbit/s' from a megabit, else '850 kbit/s'. */
export function formatBitrate(bitsPerSecond: number): string {
  const { bitrate } = operationsText;
  if (bitsPerSecond >= 1_000_000) {
    return fillText(bitrate.mbps, { value: (bitsPerSecond / 1_000_000).toFixed(1) });
  }
  return fillText(bitrate.kbps, { value: String(Math.round(bitsPerSecond / 1000)) });
}

/**
 * An instant in the viewer's own time zone and language: the time of day if it is today there,
 * with the date before it if not ('29 Nov, 14:05'); `seconds` for an event's time.
 */
export function formatLocalTime(ms: number, nowMs: number, seconds = false): string {
  const time: Intl.DateTimeFormatOptions = {
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
  };
  const sameDay = new Date(ms).toDateString() === new Date(nowMs).toDateString();
  return new Date(ms).toLocaleString(
    undefined,
    sameDay ? time : { ...time, day: 'numeric', month: 'short' },
  );
}
