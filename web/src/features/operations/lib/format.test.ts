import { describe, expect, it } from 'vitest';
import { formatBitrate, formatDuration } from './format';

describe('what the Operations page writes', () => {
  it('writes a duration in its largest two units', () => {
    expect(formatDuration(42_400)).toBe('42 s');
    expect(formatDuration(3 * 60_000 + 59_000)).toBe('3 min');
    expect(formatDuration(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min');
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 4 h');
    expect(formatDuration(-500)).toBe('0 s');
  });

  it('writes a bitrate in Mbit/s from a megabit, else in kbit/s', () => {
    expect(formatBitrate(1_234_000)).toBe('1.2 Mbit/s');
    expect(formatBitrate(850_400)).toBe('850 kbit/s');
  });
});
