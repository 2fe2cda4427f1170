/** Order statistics over a sample, as the tests, the benchmark and the soak report and judge them. */

/** The value at quantile `q` (nearest rank: a value of the sample); NaN for an empty sample. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** The middle value, or the mean of the two middle values of an even sample; NaN when empty. */
export function median(values: readonly number[]): number {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export const p95 = (values: readonly number[]): number => quantile(values, 0.95);
