/**
 * `--load=N`: the bench's own CPU load, so runs "at load 4" are comparable run to run whatever
 * else the machine does. N child processes spin on a core each; every one ends with
 * the bench, and by itself after `maxMs` however the bench ends (a crash, a kill -9 of it), so
 * the load is bounded in time.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** A spinner's own end: the longest a bench runs. */
const MAX_MS = 60 * 60 * 1000;

/** The busy loop, run with `node -e`: it spins until its time is up or its parent is gone. */
const SPIN = `
const end = Date.now() + Number(process.argv[1]);
const parent = process.ppid;
let checked = Date.now();
for (;;) {
  const now = Date.now();
  if (now > end) break;
  if (now - checked > 1000) {
    checked = now;
    try { process.kill(parent, 0); } catch { break; }
  }
}
`;

export interface AddedLoad {
  readonly processes: number;
  stop(): void;
}

export function addLoad(processes: number, maxMs = MAX_MS): AddedLoad {
  const spinners: ChildProcess[] = [];
  for (let index = 0; index < processes; index += 1) {
    spinners.push(
      spawn(process.execPath, ['-e', SPIN, String(maxMs)], { stdio: 'ignore', detached: false }),
    );
  }
  return {
    processes,
    stop: () => {
      for (const spinner of spinners) spinner.kill('SIGKILL');
    },
  };
}
