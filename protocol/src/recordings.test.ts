/**
 * The recordings layout's names and index lines (recordings.ts): the segment being written
 * (decision 0085) as the recorder marks it and the API reads it back; anything else is no name.
 */
import { describe, expect, it } from 'vitest';
import {
  grownFileName,
  parsePartFileName,
  parseSegmentFileName,
  parseSegmentIndexLine,
  partFileName,
  segmentIndexLine,
} from './recordings';

describe('the segment being written', () => {
  it('is named by its offset, ten digits, and read back', () => {
    expect(partFileName(4000)).toBe('0000004000.part');
    expect(grownFileName(4000)).toBe('0000004000.grown');
    expect(parsePartFileName('0000004000.part')).toBe(4000);
    for (const name of ['4000.part', '0000004000.part.webm', '../0000004000.part', '0000004000']) {
      expect({ name, offset: parsePartFileName(name) }).toEqual({ name, offset: undefined });
    }
    // Not a finished segment's name either: never listed as one.
    expect(parseSegmentFileName('0000004000.part')).toBeUndefined();
  });

  it('is marked in the index as it begins, and the line reads back', () => {
    const line = segmentIndexLine({ change: 'writing', name: '0000004000.part', offsetMs: 4000 });
    expect(line).toBe('*0000004000.part\n');
    expect(parseSegmentIndexLine(line.trimEnd())).toEqual({
      change: 'writing',
      name: '0000004000.part',
      offsetMs: 4000,
    });
    expect(parseSegmentIndexLine('*0000004000-4000.webm')).toBeUndefined();
    expect(parseSegmentIndexLine('*4000.part')).toBeUndefined();
    // A finished segment's line is as before.
    expect(parseSegmentIndexLine('+0000004000-4000.webm 1234')).toMatchObject({
      change: 'added',
      segment: { offsetMs: 4000, durationMs: 4000, container: 'webm' },
      bytes: 1234,
    });
  });
});
