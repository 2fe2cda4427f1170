/**
 * The CPU each process on the machine used over a short window (the join part's `--cpu`): the
 * product's processes, the browser's and the bench's own, by name. Read from /proc/<pid>/stat
 * (user + system time, in clock ticks of 10 ms), so one window is coarse; the mean over a run's
 * clicks is not. Listing the processes reads every /proc/<pid>/cmdline and is done before the
 * window; the window itself reads one small file a process (`cpuSecondsOf`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpuSecondsOf } from './stats';

/** What a command line is, by the entry it runs. */
const NAMES: [RegExp, string][] = [
  [/chrom.*--type=renderer/, "Chromium's renderers"],
  [/chrom.*--type=gpu-process/, "Chromium's GPU process (compositing)"],
  [/chrom.*--type=utility/, "Chromium's utilities (network, audio)"],
  [/chrom/, "Chromium's browser process"],
  [/firefox/, 'Firefox (all its processes)'],
  [/dist\/cameras\.js/, 'the camera process'],
  [/dist\/stage\.js/, 'the stage'],
  [/dist\/server\.js/, 'the API'],
  [/dist\/thumbnails\.js/, 'the thumbnails'],
  [/dist\/recorder\.js/, 'the recorder'],
  [/bench\/run\.ts|loader\.mjs/, "the bench's own driver"],
];

export type ProcessList = Map<number, string>;

/** The processes that matter here, by pid; others are left out. */
export function listProcesses(): ProcessList {
  const list: ProcessList = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const name = NAMES.find(([pattern]) => pattern.test(command))?.[1];
      if (name) list.set(Number(entry), name);
    } catch {
      // The process ended meanwhile.
    }
  }
  return list;
}

/** Each listed process's CPU time so far, in ms (a process that ended is left out). */
export function cpuTimes(list: ProcessList): Map<number, number> {
  const times = new Map<number, number>();
  for (const pid of list.keys()) {
    const seconds = cpuSecondsOf(pid);
    if (seconds !== undefined) times.set(pid, seconds * 1000);
  }
  return times;
}

/** Sums windows by process name; `describe()` gives the mean ms a window, biggest first. */
export class CpuWindows {
  private readonly totals = new Map<string, number>();
  windows = 0;

  add(list: ProcessList, before: Map<number, number>, after: Map<number, number>): void {
    this.windows += 1;
    for (const [pid, ms] of after) {
      const name = list.get(pid);
      const was = before.get(pid);
      if (name === undefined || was === undefined) continue;
      this.totals.set(name, (this.totals.get(name) ?? 0) + ms - was);
    }
  }

  describe(): string {
    return [...this.totals]
      .sort((a, b) => b[1] - a[1])
      .map(([name, ms]) => `${name} ${Math.round(ms / Math.max(1, this.windows))}`)
      .join(', ');
  }
}
