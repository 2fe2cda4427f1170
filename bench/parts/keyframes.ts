/**
 * Key frames a second (docs/architecture.md, key frames): receive-only viewers of one stream (bench/lib/
 * receive-only-viewers.ts) at 1 / 25 / 50 / 100, each level held --hold seconds once every viewer
 * receives: the key frames each viewer got a second, and the PLIs the stage sent the camera
 * against its viewers' own PLIs and FIRs. Such viewers ask about twice a second each (their
 * decoder never gets a frame): the most a crowd of viewers asks. The ramp is the Janus
 * comparison's (janus-comparison.ts), our stage alone; `--peer=janus` prints the same figure beside Janus's.
 */
import type { BenchContext } from '../lib/context';
import type { ServerKind } from '../lib/receive-only-viewers';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';
import { median } from '@tailcam/harness/stats';
import { Comparison, viewerLevels, waitForQuiet, type Level } from './janus-comparison';

export async function runKeyFrames(bench: BenchContext): Promise<BenchRow[]> {
  const comparison = new Comparison(bench);
  await comparison.pages.start(bench.product.baseUrl);
  try {
    await waitForQuiet('key frames');
    const levels = viewerLevels(bench.options.peerMaxViewers);
    const ramp = await comparison.ramp('ours', levels, bench.options.peerHoldMs);
    return [keyFrameRow({ ours: [ramp] })];
  } finally {
    await comparison.pages.stop();
  }
}

/**
 * Key frames a second each viewer got (median of the viewers, median of the passes) at each level,
 * and for ours the PLIs the stage sent the camera against its viewers' own PLIs and FIRs: the
 * receive-only viewers ask about twice a second each. Janus's beside ours when it ran.
 */
export function keyFrameRow(ramps: Partial<Record<ServerKind, Level[][]>>): BenchRow {
  const at = (kind: ServerKind, pick: (level: Level) => number | undefined) =>
    [...new Set((ramps[kind] ?? []).flat().map((level) => level.viewers))]
      .sort((a, b) => a - b)
      .map((viewers) => {
        const values = (ramps[kind] ?? [])
          .flat()
          .filter((level) => level.viewers === viewers)
          .map(pick)
          .filter((value): value is number => value !== undefined);
        return { viewers, value: values.length > 0 ? median(values) : Number.NaN };
      });
  const cells = (figures: { viewers: number; value: number }[]) =>
    figures.map((figure) => `${figure.viewers}: ${round(figure.value, 1)}`).join(', ');
  const ours = at('ours', (level) => level.medianKeyFps);
  const crowded = ours.filter((figure) => figure.viewers >= 25);
  const janus = ramps.janus
    ? `; Janus, key frames a viewer: ${cells(at('janus', (level) => level.medianKeyFps))}`
    : '';
  return {
    part: ramps.janus ? 'janus' : 'keyframes',
    what: `key frames a second a receive-only viewer, ours, by viewers (${(ramps.ours ?? []).length} pass(es))`,
    target: '≤ 1.2 from 25 viewers (Janus 1)',
    median: cells(ours),
    p95: `PLIs to the camera/s ${cells(at('ours', (level) => level.plisPerSecond))}`,
    pass: crowded.length > 0 && crowded.every((figure) => figure.value <= 1.2),
    note:
      `viewers' own PLIs and FIRs/s ${cells(at('ours', (level) => level.viewerRequestsPerSecond))}; ` +
      `frames a second a viewer (median) ${cells(at('ours', (level) => level.medianFps))}` +
      janus,
  };
}
