/**
 * What a viewer's move between VP8 layers costs the stage per packet forwarded (decision 0107):
 * the stage's own `LayerSwitch` (local-stage/src/server/media/viewer/layer-switch.ts) fed
 * libwebrtc-shaped VP8 packets of a simulcast camera's two layers, in this process:
 * - a viewer that never moved: its packets go out as the publisher's bytes (no copy);
 * - a viewer that moved once: each packet's picture numbers continued, in a copy of its payload.
 * Passes alternate which goes first; the figure is ns a packet, and the ratio is the move's cost.
 * Needs neither the product nor a browser (bench/run.ts starts neither for it alone).
 */
import { loadAverage } from '@tailcam/harness/load-average';
import { median, p95 } from '@tailcam/harness/stats';
import { forwardingNsPerPacket, PAYLOAD_BYTES } from '@tailcam/local-stage/testing/forwarding-cost';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';

const PACKETS = 200_000;
const PASSES = 7;
const pass = (moved: boolean) => forwardingNsPerPacket(moved, PACKETS);

export async function runForwarding(): Promise<BenchRow[]> {
  const load = loadAverage();
  console.log(`  forwarding: ${PASSES} passes of ${PACKETS} packets each way (load ${load})`);
  pass(false);
  pass(true); // warm-up
  const never: number[] = [];
  const once: number[] = [];
  for (let index = 0; index < PASSES; index += 1) {
    const order = index % 2 === 0 ? [false, true] : [true, false];
    for (const moved of order) (moved ? once : never).push(pass(moved));
  }
  const note = `${PASSES} passes of ${PACKETS} packets of ${PAYLOAD_BYTES} B, a frame each (the worst case), alternating`;
  const row = (what: string, samples: number[], rowNote: string): BenchRow => ({
    part: 'forwarding',
    what,
    target: '–',
    median: `${round(median(samples), 0)} ns`,
    p95: `${round(p95(samples), 0)} ns`,
    pass: undefined,
    note: rowNote,
  });
  return [
    row(
      "a viewer's layer switch, per VP8 packet, never moved (the publisher's bytes)",
      never,
      note,
    ),
    row(
      "the same after a move: the picture numbers continued in the viewer's copy",
      once,
      `ratio ${round(median(once) / median(never), 2)}; ${note}`,
    ),
  ];
}
