import { describe, expect, it } from 'vitest';
import { FAILURE_LINES, failureExcerpt } from './failure-excerpt.js';

describe('the failure excerpt printed again at the end of npm test', () => {
  it("starts at vitest's Failed Tests header, without colours", () => {
    const lines = [
      ...Array.from({ length: 500 }, (_, index) => ` ✓ src/passing-${index}.test.ts`),
      '\x1b[31m⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\x1b[39m',
      ' FAIL  src/recorder.test.ts > keeps what it records',
      'AssertionError: expected 3 to be 4',
      ' Test Files  1 failed | 40 passed (41)',
    ];
    expect(failureExcerpt(lines)).toEqual([
      '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
      ' FAIL  src/recorder.test.ts > keeps what it records',
      'AssertionError: expected 3 to be 4',
      ' Test Files  1 failed | 40 passed (41)',
    ]);
  });

  it("starts at a failed file's or an unhandled error's header as well", () => {
    for (const header of ['⎯⎯ Failed Suites 1 ⎯⎯', '⎯⎯ Unhandled Errors ⎯⎯']) {
      const lines = [' ✓ src/passing.test.ts', header, 'Error: the worker died'];
      expect(failureExcerpt(lines)).toEqual([header, 'Error: the worker died']);
    }
  });

  it('is the last lines when there is no header, and at most FAILURE_LINES and a line saying so', () => {
    const lines = Array.from({ length: 300 }, (_, index) => `line ${index}`);
    expect(failureExcerpt(lines)).toEqual(lines.slice(-FAILURE_LINES));
    const long = ['⎯⎯ Failed Tests 2 ⎯⎯', ...lines];
    const excerpt = failureExcerpt(long);
    expect(excerpt).toHaveLength(FAILURE_LINES + 1);
    expect(excerpt[0]).toBe('⎯⎯ Failed Tests 2 ⎯⎯');
    expect(excerpt.at(-1)).toBe(
      `… and ${long.length - FAILURE_LINES} lines more in the command's own output, above`,
    );
  });
});
