/** The load average, printed next to every timing the benchmark and the soak report. */
import { loadavg } from 'node:os';

export function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}
