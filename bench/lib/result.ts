/** One line of the bench table: a target of docs/benchmarks.md#targets, or a figure behind one. */
export interface BenchRow {
  /** The part that measured it (`join`, `g2g`, ...). */
  part: string;
  what: string;
  target: string;
  median: string;
  p95: string;
  /** true: meets its target; false: misses it; undefined: informative, no target. */
  pass: boolean | undefined;
  note: string;
}

export interface PartOutcome {
  rows: BenchRow[];
  /** Load average (1, 5, 15 min) when the part started and ended. */
  load: { start: string; end: string };
  seconds: number;
}
