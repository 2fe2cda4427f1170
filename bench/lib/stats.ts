/**
 * Rounding for the bench's table, and a process's CPU time. The order statistics and the load
 * average are the harness's (@tailcam/harness/stats, @tailcam/harness/load-average).
 */
import { readFileSync } from 'node:fs';

export function round(value: number, digits = 0): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** CPU seconds (user + system) a process has used, from /proc; undefined once it is gone. */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command is in parentheses and may hold spaces: fields are counted after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Linux counts process CPU time in clock ticks of 1/100 s (USER_HZ).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}
