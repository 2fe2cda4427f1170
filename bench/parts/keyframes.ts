/**
 * Key frames a second (issue 27 §3): receive-only viewers of one stream (bench/lib/
 * receive-only-viewers.ts) at 1 / 25 / 50 / 100, each level held --hold seconds once every viewer
 * receives: the key frames each viewer got a second, and the PLIs the stage sent the camera
 * against its viewers' own PLIs and FIRs. Such viewers ask about twice a second each (their
 * decoder never gets a frame): the most a crowd of viewers asks. The ramp is the Janus
 * comparison's (janus.ts), our stage alone; `--peer=janus` prints the same figure beside Janus's.
 */
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { Comparison, keyFrameRow, viewerLevels, waitForQuiet } from './janus';

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
