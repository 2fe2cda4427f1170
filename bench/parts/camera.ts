/**
 * What the synthetic cameras' drawing costs (docs/decisions/0025-camera-rendering.md): each
 * aircraft's scene drawn into I420 by the cameras' own `SceneRenderer`, in this process, at the
 * cameras' 640x360 and at 1280x720. The camera process draws 30 such frames a second for each
 * aircraft someone watches, on the machine the viewers' browsers share; the share of a core for
 * the three is beside the figure. Needs neither the product nor a browser.
 */
import { loadAverage } from '@tailcam/harness/load-average';
import { median } from '@tailcam/harness/stats';
import { sceneMsPerFrame } from '@tailcam/local-stage/testing/scene-cost';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';

const FRAMES = 1_000;
const PASSES = 5;
const SIZES = [
  [640, 360],
  [1280, 720],
] as const;

export async function runCamera(): Promise<BenchRow[]> {
  const before = loadAverage();
  console.log(
    `  camera: ${PASSES} passes of ${FRAMES} frames a size and aircraft (load ${before})`,
  );
  const rows: BenchRow[] = [];
  for (const [width, height] of SIZES) {
    const samples: number[] = [];
    for (let pass = 0; pass < PASSES; pass += 1) {
      for (const streamId of STREAM_IDS)
        samples.push(sceneMsPerFrame(streamId, width, height, FRAMES));
    }
    const ms = median(samples);
    rows.push({
      part: 'camera',
      what: `a synthetic camera's frame drawn, ${width}x${height}`,
      target: '–',
      median: `${round(ms, 3)} ms`,
      p95: `${round(Math.max(...samples), 3)} ms (max)`,
      pass: undefined,
      note:
        `three aircraft at 30 frames a second: ${round((ms * 90) / 10, 1)} % of a core; ` +
        `${PASSES} passes of ${FRAMES} frames each aircraft`,
    });
  }
  return rows;
}
