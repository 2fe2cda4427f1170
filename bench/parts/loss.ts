/**
 * A new viewer over a lossy link: click on a stream card → first frame presented, fresh
 * /home each time, with 2 % of the RTP the stage sends to the new viewer dropped from its first
 * packet (the loopback-only loss fault with `newSubscriptions`: this machine's kernel has no netem)
 * against none, rounds alternating (A/B under the same load), the three streams in turn. What the
 * loss costs is the key frame's packets: a lost one is NACKed and sent again from the stage's
 * packet cache (forwarding.ts) before the frame can be decoded.
 */
import { signedInContext } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { median, p95, quantile } from '@tailcam/harness/stats';
import { round } from '../lib/stats';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { measureClick, type JoinSample } from './join';

const LOSS_PERCENT = 2;

export async function runLoss(bench: BenchContext): Promise<BenchRow[]> {
  const joins = bench.options.joins;
  const stage = bench.product.stage;
  const groups: Record<'clean' | 'lossy', JoinSample[]> = { clean: [], lossy: [] };
  let lossAnswered = { dropped: 0, retransmitted: 0 };
  const context = await signedInContext(bench);
  try {
    const page = await context.newPage();
    // One unrecorded join first: Chromium's first video decoder in the browser process.
    for (let index = -1; index < joins * 2; index += 1) {
      const lossy = index >= 0 && index % 2 === 1;
      const streamId = STREAM_IDS[(index + 3) % 3] ?? 'N743AS';
      await page.goto('/home');
      await stage.loss({ percent: lossy ? LOSS_PERCENT : 0, newSubscriptions: true });
      const sample = await measureClick(page, streamId);
      if (lossy) {
        // What the stage did for this viewer: read before the next page closes its subscription.
        const answer = await stage.loss({ stageId: streamId, percent: LOSS_PERCENT });
        lossAnswered = {
          dropped: lossAnswered.dropped + answer.dropped,
          retransmitted: lossAnswered.retransmitted + answer.retransmitted,
        };
      }
      if (index >= 0) groups[lossy ? 'lossy' : 'clean'].push(sample);
    }
  } finally {
    await stage.loss({ percent: 0, newSubscriptions: true });
    await context.close();
  }
  const totals = (group: JoinSample[]) => group.map((sample) => sample.totalMs);
  const clean = median(totals(groups.clean));
  const lossy = median(totals(groups.lossy));
  const spread = (group: JoinSample[]) =>
    `${round(quantile(totals(group), 0.25))}–${round(quantile(totals(group), 0.75))}`;
  return [
    {
      part: 'loss',
      what: `a new viewer under ${LOSS_PERCENT} % packet loss: click → first frame, fresh /home (n=${groups.lossy.length} each, A/B alternating)`,
      target: '≤ 1.5× loss-free',
      median: `${round(lossy)} ms (loss-free ${round(clean)} ms)`,
      p95: `ratio ${round(lossy / clean, 2)}`,
      pass: lossy / clean <= 1.5,
      note:
        `p25–p75 lossy ${spread(groups.lossy)}, loss-free ${spread(groups.clean)} ms; p95 lossy ` +
        `${round(p95(totals(groups.lossy)))}, loss-free ${round(p95(totals(groups.clean)))} ms; ` +
        `the stage dropped ${lossAnswered.dropped} packets to the lossy viewers in their joins and sent ` +
        `${lossAnswered.retransmitted} again`,
    },
  ];
}
