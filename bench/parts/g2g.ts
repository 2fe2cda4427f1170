/**
 * Glass-to-glass: for every other frame the player presents, the capture time written in its
 * pixels by the stage (time strip, Date.now() when drawn) against the time the frame is expected
 * on screen (requestVideoFrameCallback's expectedDisplayTime, mapped onto Date.now()). Stage and
 * browser share one clock on this machine. Also split at the frame's receiveTime (last packet
 * received): capture → received (draw, encode, send, network) and received → on screen (jitter
 * buffer, decode, composition).
 */
import { sampleG2gOn, signedInContext } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import type { G2gSample } from '../lib/page-probe';
import type { BenchRow } from '../lib/result';
import { median, p95 } from '@tailcam/harness/stats';
import { round } from '../lib/stats';

const STREAMS = ['N743AS', 'N953AS', 'N954AS'];
const SAMPLE_MS = 4_000;

export async function runG2g(bench: BenchContext): Promise<BenchRow[]> {
  const context = await signedInContext(bench);
  const samples: G2gSample[] = [];
  let wrongStream = 0;
  try {
    const page = await context.newPage();
    for (const [index, streamId] of STREAMS.entries()) {
      for (const sample of await sampleG2gOn(page, streamId, SAMPLE_MS)) {
        if (sample.streamIndex === index) samples.push(sample);
        else wrongStream += 1;
      }
    }
  } finally {
    await context.close();
  }
  const total = samples.map((s) => s.presentedMs - s.captureMs);
  const toReceive = samples
    .filter((s) => s.receiveMs !== undefined)
    .map((s) => (s.receiveMs ?? 0) - s.captureMs);
  const toScreen = samples
    .filter((s) => s.receiveMs !== undefined)
    .map((s) => s.presentedMs - (s.receiveMs ?? 0));
  const medianMs = median(total);
  return [
    {
      part: 'g2g',
      what: `glass-to-glass, capture → on screen (n=${samples.length} frames, 3 streams)`,
      target: '≤ 80 ms median',
      median: `${round(medianMs)} ms`,
      p95: `${round(p95(total))} ms`,
      pass: samples.length >= 30 && medianMs <= 80 && wrongStream === 0,
      note:
        `capture → received ${round(median(toReceive))} ms (p95 ${round(p95(toReceive))}), ` +
        `received → on screen ${round(median(toScreen))} ms (p95 ${round(p95(toScreen))})` +
        (wrongStream ? `; ${wrongStream} frames of the WRONG stream` : ''),
    },
  ];
}
