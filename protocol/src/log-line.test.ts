import { describe, expect, it } from 'vitest';
import { defaultLogFormat } from './log-line';

describe('the log format', () => {
  it('is pretty on a terminal, JSON otherwise', () => {
    expect(defaultLogFormat(true)).toBe('pretty');
    expect(defaultLogFormat(false)).toBe('json');
    expect(defaultLogFormat(undefined)).toBe('json');
  });
});
