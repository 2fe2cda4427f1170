import { describe, expect, it } from 'vitest';
import { formatMoment, parseMoment } from './moment';

describe('a moment in the URL (?t=)', () => {
  it.each([
    ['2026-11-29T06:25:30Z', Date.UTC(2026, 10, 29, 6, 25, 30)],
    ['2026-11-29T06:25:30.250Z', Date.UTC(2026, 10, 29, 6, 25, 30, 250)],
    ['2026-11-29T08:25:30+02:00', Date.UTC(2026, 10, 29, 6, 25, 30)],
  ])('reads %s as an instant', (t, ms) => {
    expect(parseMoment(t)).toEqual({ kind: 'instant', ms });
  });

  it('reads nothing when there is no t', () => {
    expect(parseMoment(null)).toEqual({ kind: 'none' });
    expect(parseMoment('')).toEqual({ kind: 'none' });
  });

  it.each([
    'yesterday',
    '06:25:30',
    '2026-11-29',
    '2026-11-29T06:25:30', // no zone: the viewer's own would be a guess
    '2026-11-31T06:25:30Z', // no 31st of November
    '2026-02-29T06:25:30Z',
    '2026-11-29T24:00:00Z',
    '2026-11-29T06:61:00Z',
    '1795938651451',
    '2026-11-29T06:25:30Z<script>',
  ])('refuses %s, saying what was given', (t) => {
    expect(parseMoment(t)).toEqual({ kind: 'bad', text: t });
  });

  it('writes an instant to the whole second in UTC, which reads back the same', () => {
    const ms = Date.UTC(2026, 10, 29, 6, 25, 30, 900);
    expect(formatMoment(ms)).toBe('2026-11-29T06:25:30Z');
    expect(parseMoment(formatMoment(ms))).toEqual({ kind: 'instant', ms: ms - 900 });
  });
});
