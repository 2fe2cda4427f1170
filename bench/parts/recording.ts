/**
 * What recording costs (decision 0072), on the bench's own instance, which runs without a recorder
 * (the harness starts it with RECORDING=off): the recorder `npm start` runs is started beside it
 * (harness/src/recorder-process.ts) and stopped again, so that with and without it is one stage
 * and one camera process. With /watch-all open, all three cameras encode and the recorder records
 * all three: its CPU (from /proc) and the bytes it adds to the recordings directory over
 * WINDOW_MS, as a share of a core and as disk per hour per aircraft. Then glass-to-glass on
 * N743AS in PASSES passes, each one sample without the recorder, one with it, and one with each
 * of two variants (2 s and 10 s segments: more, fewer key-frame requests), in rotating order, the load
 * printed with each: the recorder subscribes like a player and must not cost a viewer anything.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadAverage } from '@tailcam/harness/load-average';
import { framesDecodedPerVideo } from '@tailcam/harness/player';
import { startRecorderProcess, type RecorderProcess } from '@tailcam/harness/recorder-process';
import { stageControl } from '@tailcam/harness/stage-control';
import { median, p95 } from '@tailcam/harness/stats';
import { sampleG2gOn, signedInContext } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { cpuSecondsOf, round } from '../lib/stats';

const WINDOW_MS = 30_000;
/** A/B passes (bounded: each is four samples and three recorder starts, ~50 s when loaded). */
const PASSES = 5;
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

function startRecorder(bench: BenchContext, env: NodeJS.ProcessEnv = {}): Promise<RecorderProcess> {
  const stagePort = bench.product.options.stagePort;
  if (stagePort === undefined) throw new Error('the recording part needs a local stage');
  return startRecorderProcess({ dataDir: bench.product.dataDir, stagePort, env });
}

/** Without the recorder (no env), or with it and this environment. */
interface Side {
  name: string;
  env?: NodeJS.ProcessEnv;
}

/** Key frames N743AS's publisher has sent so far (the stage's count). */
async function keyFramesOf(bench: BenchContext): Promise<number> {
  return (
    (await stageControl(bench.product.stageUrl).stats()).stages.N743AS?.publisher?.keyFrames ?? 0
  );
}

export async function runRecording(bench: BenchContext): Promise<BenchRow[]> {
  const recordings = join(bench.product.dataDir, 'recordings');

  // All three watched: the cameras encode, the recorder records them.
  let cpuShare: number;
  let bytes: number;
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

  // A/B on one instance, the order rotating between passes. Besides off and on (the defaults:
  // 4 s segments), the recorder with shorter and longer segments, so with more and fewer of its
  // key-frame requests (each makes every simulcast layer a key frame): where a cost shows, this
  // tells whether they are it (2 s, the default before, was seen to cost a viewer; decision 0075). (Its
  // priority, RECORDING_NICE=0 against 10, showed no difference here in two runs; on a saturated
  // machine 10 starved it: decision 0111.)
  const sides: Side[] = [
    { name: 'off' },
    { name: 'on', env: {} },
    { name: 'on, 2 s segments', env: { RECORDING_SEGMENT_MS: '2000' } },
    { name: 'on, 10 s segments', env: { RECORDING_SEGMENT_MS: '10000' } },
  ];
  const samples = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  const keyFramesPerSecond = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  const passMedians: string[] = [];
  const firstLoad = loadAverage();
  for (let index = 0; index < PASSES; index += 1) {
    const order = sides.map((_, at) => sides[(at + index) % sides.length]!);
    const medians: string[] = [];
    for (const side of order) {
      const passRecorder = side.env ? await startRecorder(bench, side.env) : undefined;
      try {
        if (passRecorder) await new Promise((done) => setTimeout(done, RECORDER_SETTLE_MS));
        const before = await keyFramesOf(bench);
        const started = performance.now();
        const got = await g2gOn(bench);
        const seconds = (performance.now() - started) / 1000;
        keyFramesPerSecond.get(side.name)?.push(((await keyFramesOf(bench)) - before) / seconds);
        samples.get(side.name)?.push(...got);
        medians.push(`${side.name} ${round(median(got))}`);
      } finally {
        await passRecorder?.stop();
      }
    }
    passMedians.push(medians.join(', '));
    console.log(
      `[bench] recording A/B pass ${index + 1}: g2g median ms ${medians.join(', ')}; load ${loadAverage()}`,
    );
  }
  const off = samples.get('off') ?? [];
  const on = samples.get('on') ?? [];
  const difference = median(on) - median(off);
  const variantRows: BenchRow[] = sides.map((side) => {
    const values = samples.get(side.name) ?? [];
    const keyFrames = keyFramesPerSecond.get(side.name) ?? [];
    return {
      part: 'recording',
      what: `glass-to-glass N743AS, recorder ${side.name}`,
      target: 'reported',
      median: `${round(median(values))} ms`,
      p95: `${round(p95(values))} ms`,
      pass: undefined,
      note: `n = ${values.length}; N743AS key frames ${round(median(keyFrames), 2)}/s (median of passes)`,
    };
  });
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
      what: `glass-to-glass N743AS, recorder off vs on (A/B, one instance, ${PASSES} passes, order rotating)`,
      target: 'no change beyond the noise: on − off within ±10 ms (median)',
      median: `off ${round(median(off))} ms, on ${round(median(on))} ms`,
      p95: `off ${round(p95(off))} ms, on ${round(p95(on))} ms`,
      pass: off.length >= 30 && on.length >= 30 && Math.abs(difference) <= 10,
      note:
        `n = ${off.length} off, ${on.length} on; on − off ${round(difference)} ms (median); ` +
        `per pass (ms): ${passMedians.join(' | ')}; load at the first pass ${firstLoad}`,
    },
    ...variantRows,
  ];
}
