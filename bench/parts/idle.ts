/**
 * The whole product with nobody watching: the CPU of every process `npm start` runs (the start
 * script, the API, the stage, the camera process, the thumbnail process, and the recorder, which
 * the bench's product runs without and this part starts beside it with `npm start`'s default,
 * RECORDING=all), read from /proc over 60 s once the cameras sleep (decision 0074: their WHIP
 * sessions ended a minute after the last viewer). Each process's share is printed, in CPU ticks
 * too (10 ms each), so a change shows where the cost went (decision 0078).
 */
import { readFileSync } from 'node:fs';
import { loadAverage } from '@tailcam/harness/load-average';
import { startRecorderProcess } from '@tailcam/harness/recorder-process';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { cpuSecondsOf, round } from '../lib/stats';

const WINDOW_MS = 60_000;
/** After start-up, before the window: the API's and the cameras' start-up work is over by then. */
export const IDLE_SETTLE_MS = 45_000;
/** The bench's product's CAMERA_SLEEP_AFTER_MS: the product's default (local-stage config.ts). */
export const CAMERA_SLEEP_AFTER_MS = 60_000;
/**
 * After the cameras fell asleep, before the window: their sessions' ends are over by then, and
 * the recorder's and the thumbnail process's collections after them (5 s left them in the window:
 * 10 and 5 ticks of 60 s, none in the next 60 s).
 */
const AFTER_SLEEP_MS = 30_000;
/** CPU seconds used so far by `pid` (user + system), and its command line. */
function cpuOf(pid: number): { seconds: number; command: string } | undefined {
  const seconds = cpuSecondsOf(pid);
  if (seconds === undefined) return undefined;
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1).join(' ');
    return { seconds, command };
  } catch {
    return undefined;
  }
}

/** What `npm start` process a command line is. */
export function processLabel(command: string): string {
  if (command.includes('stage.js')) return 'stage';
  if (command.includes('cameras.js')) return 'cameras';
  if (command.includes('thumbnails.js')) return 'thumbnails';
  if (command.includes('recorder.js')) return 'recorder';
  if (command.includes('server.js')) return 'API';
  if (command.includes('start.mjs')) return 'start script';
  return command.slice(0, 40);
}

/**
 * Waits (bounded) until nobody watches, the cameras sleep, and the product's start-up work is
 * over: where an idle window starts (this part's and the Janus comparison's).
 */
export async function untilIdleAndAsleep(bench: BenchContext): Promise<void> {
  await bench.product.stage.idle();
  const settled = performance.now() + IDLE_SETTLE_MS;
  // The cameras sleep CAMERA_SLEEP_AFTER_MS after the last viewer (or presence call) is gone.
  const sleepAfterMs = Number(bench.product.env.CAMERA_SLEEP_AFTER_MS ?? CAMERA_SLEEP_AFTER_MS);
  const deadline = performance.now() + sleepAfterMs + 30_000;
  while (sleepAfterMs > 0 && (await bench.product.stage.stats()).cameras !== 'asleep') {
    if (performance.now() > deadline) throw new Error('the cameras did not fall asleep');
    await new Promise((done) => setTimeout(done, 1_000));
  }
  // The rest of the wait lets the work that follows a start or the other parts end (V8's
  // collections and compiles on its worker threads, libwebrtc's first, faster ICE checks): 8 to
  // 38 s after a start the product measured 1.4-2.0 % of a core, 60 to 90 s after it 0.7 %.
  const rest = Math.max(settled - performance.now(), AFTER_SLEEP_MS);
  await new Promise((done) => setTimeout(done, rest));
}

export async function runIdle(bench: BenchContext): Promise<BenchRow[]> {
  const stagePort = bench.product.options.stagePort;
  if (stagePort === undefined) throw new Error('the idle part needs a local stage');
  const recorder = await startRecorderProcess({ dataDir: bench.product.dataDir, stagePort });
  let elapsed: number;
  let pids: number[];
  let before: Map<number, ReturnType<typeof cpuOf>>;
  let loadBefore: string;
  let loadAfter: string;
  try {
    await untilIdleAndAsleep(bench);
    pids = [...bench.product.pids(), recorder.pid];
    before = new Map(pids.map((pid) => [pid, cpuOf(pid)]));
    loadBefore = loadAverage();
    const started = performance.now();
    await new Promise((done) => setTimeout(done, WINDOW_MS));
    elapsed = (performance.now() - started) / 1000;
    loadAfter = loadAverage();
  } catch (error) {
    await recorder.stop();
    throw error;
  }
  const shares = pids.flatMap((pid) => {
    const first = before.get(pid);
    const last = cpuOf(pid);
    if (!first || !last) return [];
    const seconds = last.seconds - first.seconds;
    return [{ name: processLabel(last.command), share: seconds / elapsed, ticks: seconds * 100 }];
  });
  await recorder.stop();
  const total = shares.reduce((sum, entry) => sum + entry.share, 0);
  console.log(`  idle: the window's load average ${loadBefore} → ${loadAfter}`);
  for (const entry of shares) {
    console.log(
      `  idle: ${entry.name.padEnd(12)} ${round(entry.share * 100, 3)} % of a core (${round(entry.ticks, 0)} ticks)`,
    );
  }
  return [
    {
      part: 'idle',
      what: 'the whole product with nobody watching, CPU',
      target: '≤ 0.5 % of a core (decision 0078)',
      median: `${round(total * 100, 2)} % of a core`,
      p95: '–',
      pass: total <= 0.005,
      note: `over ${round(elapsed, 0)} s: ${shares.map((entry) => `${entry.name} ${round(entry.share * 100, 2)} %`).join(', ')}`,
    },
  ];
}
