/** At most this many lines are printed again. */
export const FAILURE_LINES: number;
/**
 * What a failed test command said of its failure: from vitest's first failure header ("Failed
 * Tests 1", "Failed Suites 1", "Unhandled Errors") when the command printed one, else its last
 * lines; at most FAILURE_LINES, colours removed.
 */
export function failureExcerpt(lines: string[]): string[];
