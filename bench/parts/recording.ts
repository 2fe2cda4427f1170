/**
 * What recording costs (issue 30), on the bench's own instance, which runs without a recorder
 * (the harness starts it with RECORDING=off): the recorder `npm start` runs is started beside it
 * (harness/src/recorder-process.ts) and stopped again, so that with and without it is one stage
 * and one camera process. With /watch-all open, all three cameras encode and the recorder records
 * all three: its CPU (from /proc) and the bytes it adds to the recordings directory over
 * WINDOW_MS, as a share of a core and as disk per hour per aircraft. Then glass-to-glass on
 * N743AS in PASSES passes, each one sample without the recorder and one with it, in alternating
 * order (off/on, on/off, ...), the load printed with each: the recorder subscribes like a player
 * and must not cost a viewer anything.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadAverage } from '@tailcam/harness/load-average';
import { framesDecodedPerVideo } from '@tailcam/harness/player';
import { startRecorderProcess, type RecorderProcess } from '@tailcam/harness/recorder-process';
import { median, p95 } from '@tailcam/harness/stats';
import { sampleG2gOn, signedInContext } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { cpuSecondsOf, round } from '../lib/stats';

const WINDOW_MS = 30_000;
/** A/B passes (bounded: each is two samples and a recorder start, ~25 s on a loaded machine). */
const PASSES = 6;
const SAMPLE_MS = 5_000;
/** After the recorder starts: it reads the stage's health each second and subscribes. */
const RECORDER_SETTLE_MS = 2_000;

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

function startRecorder(bench: BenchContext): Promise<RecorderProcess> {
  const stagePort = bench.product.options.stagePort;
  if (stagePort === undefined) throw new Error('the recording part needs a local stage');
  return startRecorderProcess({ dataDir: bench.product.dataDir, stagePort });
}

interface Pass {
  off: number[];
  on: number[];
  load: string;
}

export async function runRecording(bench: BenchContext): Promise<BenchRow[]> {
  const recordings = join(bench.product.dataDir, 'recordings');

  // All three watched: the cameras encode, the recorder records them.
  let cpuShare = NaN;
  let bytes = 0;
  const cpuLoad = loadAverage();
  const recorder = await startRecorder(bench);
  const context = await signedInContext(bench);
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
    const cpuBefore = cpuSecondsOf(recorder.pid) ?? NaN;
    const bytesBefore = bytesUnder(recordings);
    const started = performance.now();
    await page.waitForTimeout(WINDOW_MS);
    const elapsed = (performance.now() - started) / 1000;
    cpuShare = ((cpuSecondsOf(recorder.pid) ?? NaN) - cpuBefore) / elapsed;
    bytes = bytesUnder(recordings) - bytesBefore;
  } finally {
    await context.close();
    await recorder.stop();
  }
  const mibPerHourPerAircraft = ((bytes / 3 / (WINDOW_MS / 1000)) * 3600) / 2 ** 20;

  // A/B on one instance, the order alternating between passes.
  const passes: Pass[] = [];
  for (let index = 0; index < PASSES; index += 1) {
    const pass: Pass = { off: [], on: [], load: loadAverage() };
    for (const side of index % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      if (side === 'off') {
        pass.off = await g2gOn(bench);
        continue;
      }
      const passRecorder = await startRecorder(bench);
      try {
        await new Promise((done) => setTimeout(done, RECORDER_SETTLE_MS));
        pass.on = await g2gOn(bench);
      } finally {
        await passRecorder.stop();
      }
    }
    passes.push(pass);
    console.log(
      `[bench] recording A/B pass ${index + 1}: g2g median off ${round(median(pass.off))} ms, ` +
        `on ${round(median(pass.on))} ms (n ${pass.off.length}/${pass.on.length}), load ${pass.load}`,
    );
  }
  const off = passes.flatMap((pass) => pass.off);
  const on = passes.flatMap((pass) => pass.on);
  const difference = median(on) - median(off);
  const perPass = passes.map((pass) => round(median(pass.on) - median(pass.off)));
  return [
    {
      part: 'recording',
      what: 'the recorder, all three aircraft watched (VP8 cameras): CPU',
      target: 'reported',
      median: `${round(cpuShare * 100, 1)} % of a core`,
      p95: '–',
      pass: Number.isFinite(cpuShare),
      note: `over ${WINDOW_MS / 1000} s, the recorder process alone (it decodes nothing); load ${cpuLoad}`,
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
      what: `glass-to-glass N743AS, recorder off vs on (A/B, one instance, ${PASSES} passes, order alternating)`,
      target: 'no change beyond the noise: on − off within ±10 ms (median)',
      median: `off ${round(median(off))} ms, on ${round(median(on))} ms`,
      p95: `off ${round(p95(off))} ms, on ${round(p95(on))} ms`,
      pass: off.length >= 30 && on.length >= 30 && Math.abs(difference) <= 10,
      note:
        `n = ${off.length} off, ${on.length} on; on − off ${round(difference)} ms (median); ` +
        `per pass ${perPass.join(', ')} ms; load ${passes[0]?.load} → ${loadAverage()}`,
    },
  ];
}
