// What a failed test command said of its failure, printed again at the end of `npm test`
// (scripts/test.mjs): its lanes interleave their output, and a log cut to its tail would show only
// the passing lane's last lines. Plain JavaScript: the test command runs on Node alone.

/** At most this many lines are printed again. */
export const FAILURE_LINES = 80;
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * From vitest's first failure header ("Failed Tests 1", "Failed Suites 1", "Unhandled Errors")
 * when the command printed one, else its last lines; at most FAILURE_LINES, colours removed.
 */
export function failureExcerpt(lines) {
  const plain = lines.map((line) => line.replace(ANSI, ''));
  const header = plain.findIndex((line) => /Failed (Tests|Suites) \d+|Unhandled Errors/.test(line));
  const from = header >= 0 ? header : Math.max(0, plain.length - FAILURE_LINES);
  const excerpt = plain.slice(from, from + FAILURE_LINES);
  const cut = plain.length - from - excerpt.length;
  return cut > 0
    ? [...excerpt, `… and ${cut} lines more in the command's own output, above`]
    : excerpt;
}
