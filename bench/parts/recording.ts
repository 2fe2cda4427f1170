/**
 * What recording costs (issue 30): a second instance of the product with the recorder on
 * (RECORDING=all; the bench's own runs with it off, as the harness starts it), on ports of its
 * own (BENCH_PORT + 50, BENCH_STAGE_PORT + 50). With /watch-all open there, all three cameras
 * encode and the recorder records all three: its CPU (from /proc) and the bytes it adds to the
 * recordings directory over WINDOW_MS, as a share of a core and as disk per hour per aircraft.
 * Then glass-to-glass on N743AS, alternating between the instance without and the one with the
 * recorder (ROUNDS of each, A/B under the same load): the recorder subscribes like a player and
 * must not cost a viewer anything.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, p95 } from '@tailcam/harness/stats';
import { framesDecodedPerVideo } from '@tailcam/harness/player';
import { Product } from '@tailcam/harness/product';
import { sampleG2gOn, signedInContext } from '../lib/browser';
import { VIEWER, type BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { cpuSecondsOf, round } from '../lib/stats';

const WINDOW_MS = 30_000;
const ROUNDS = 3;
const SAMPLE_MS = 4_000;
const PORT_OFFSET = 50;

/** Bytes of every file under `dir` (missing: 0). */
function bytesUnder(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

function isRecorder(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('recorder.js');
  } catch {
    return false;
  }
}

/** Glass-to-glass samples (ms) of N743AS on `bench`'s product for SAMPLE_MS. */
async function g2gOn(bench: BenchContext): Promise<number[]> {
  const context = await signedInContext(bench);
  try {
    const page = await context.newPage();
    return (await sampleG2gOn(page, 'N743AS', SAMPLE_MS))
      .filter((sample) => sample.streamIndex === 0)
      .map((sample) => sample.presentedMs - sample.captureMs);
  } finally {
    await context.close();
  }
}

export async function runRecording(bench: BenchContext): Promise<BenchRow[]> {
  const port = (bench.product.options.port ?? 29080) + PORT_OFFSET;
  const recording = new Product({
    name: 'bench-recording',
    port,
    stagePort: (bench.product.options.stagePort ?? 29091) + PORT_OFFSET,
    logFile: join(tmpdir(), `tailcam-bench-recording-${port}.log`),
    env: { RECORDING: 'all' },
  });
  recording.addViewer(VIEWER);
  try {
    await recording.start();
    const withRecorder: BenchContext = {
      ...bench,
      product: recording,
      loginToken: await recording.loginToken(VIEWER),
    };
    const recorder = recording.pids().find(isRecorder);
    if (recorder === undefined) throw new Error('no recorder process under RECORDING=all');
    const recordings = join(recording.dataDir, 'recordings');

    // All three watched: the cameras encode, the recorder records them.
    const context = await signedInContext(withRecorder);
    let cpuShare = NaN;
    let bytes = 0;
    try {
      const page = await context.newPage();
      await page.goto('/watch-all');
      // Every tile decoding (polled here: a function defined in the page would carry tsx's
      // helpers with it).
      const until = Date.now() + 30_000;
      for (;;) {
        const frames = await framesDecodedPerVideo(page);
        if (frames.length >= 3 && Math.min(...frames) > 5) break;
        if (Date.now() > until) throw new Error('/watch-all did not play all three');
        await page.waitForTimeout(500);
      }
      await page.waitForTimeout(5_000); // the recorder's subscriptions and first segments
      const cpuBefore = cpuSecondsOf(recorder) ?? NaN;
      const bytesBefore = bytesUnder(recordings);
      const started = performance.now();
      await page.waitForTimeout(WINDOW_MS);
      const elapsed = (performance.now() - started) / 1000;
      cpuShare = ((cpuSecondsOf(recorder) ?? NaN) - cpuBefore) / elapsed;
      bytes = bytesUnder(recordings) - bytesBefore;
    } finally {
      await context.close();
    }
    const mibPerHourPerAircraft = ((bytes / 3 / (WINDOW_MS / 1000)) * 3600) / 2 ** 20;

    // A/B, alternating: off (the bench's own instance), then on.
    const off: number[] = [];
    const on: number[] = [];
    for (let pass = 0; pass < ROUNDS; pass += 1) {
      off.push(...(await g2gOn(bench)));
      on.push(...(await g2gOn(withRecorder)));
    }
    const difference = median(on) - median(off);
    return [
      {
        part: 'recording',
        what: 'the recorder, all three aircraft watched (VP8 cameras): CPU',
        target: 'reported',
        median: `${round(cpuShare * 100, 1)} % of a core`,
        p95: '–',
        pass: Number.isFinite(cpuShare),
        note: `over ${WINDOW_MS / 1000} s, the recorder process alone (it decodes nothing)`,
      },
      {
        part: 'recording',
        what: 'disk per hour per aircraft (the synthetic cameras, default settings)',
        target: 'reported',
        median: `${round(mibPerHourPerAircraft, 0)} MiB`,
        p95: '–',
        pass: bytes > 0,
        note: `${round(bytes / 2 ** 20, 1)} MiB for 3 aircraft in ${WINDOW_MS / 1000} s`,
      },
      {
        part: 'recording',
        what: `glass-to-glass N743AS, recorder off vs on (A/B, ${ROUNDS} alternating rounds)`,
        target: 'no change beyond the noise: on − off within ±10 ms (median)',
        median: `off ${round(median(off))} ms, on ${round(median(on))} ms`,
        p95: `off ${round(p95(off))} ms, on ${round(p95(on))} ms`,
        pass: off.length >= 30 && on.length >= 30 && Math.abs(difference) <= 10,
        note: `n = ${off.length} off, ${on.length} on; on − off ${round(difference)} ms (median)`,
      },
    ];
  } finally {
    await recording.dispose();
  }
}
