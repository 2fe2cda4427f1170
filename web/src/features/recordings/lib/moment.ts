/**
 * A moment of a recording in a URL (docs/product.md#recordings): `?t=2026-11-29T06:25:30Z`, an
 * ISO 8601 time in UTC or with an offset, read strictly (a date the calendar has not, as the
 * 31st of November, is refused rather than rolled over), written to the whole second in UTC.
 */

export type Moment =
  { kind: 'none' } | { kind: 'instant'; ms: number } | { kind: 'bad'; text: string };

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;

/** The moment `t` names: none without one, `bad` (with what was given) for what is not a time. */
export function parseMoment(t: string | null): Moment {
  if (t === null || t === '') return { kind: 'none' };
  const parts = ISO_TIME.exec(t);
  const ms = Date.parse(t);
  if (!parts || Number.isNaN(ms)) return { kind: 'bad', text: t };
  const [, year, month, day, hours, minutes, seconds] = parts.map(Number);
  // Date.parse rolls 2026-11-31 over to December; the calendar's own date must be the one given.
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (
    calendar.getUTCMonth() !== month! - 1 ||
    calendar.getUTCDate() !== day ||
    hours! > 23 ||
    minutes! > 59 ||
    seconds! > 59
  ) {
    return { kind: 'bad', text: t };
  }
  return { kind: 'instant', ms };
}

/** `2026-11-29T06:25:30Z`: the instant to the whole second (down), in UTC. */
export function formatMoment(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The URL of an aircraft's moment, `/recordings/N743AS?t=2026-11-29T06:25:30Z`
 * (docs/product.md#recordings); `t` as formatMoment writes it (nothing in it to escape).
 */
export function momentHref(stageId: string, t: string): string {
  return `/recordings/${encodeURIComponent(stageId)}?t=${t}`;
}
