// Congestion feedback (decision 0066) in the network lab, behind TAILCAM_LONG_TESTS=1: a Chromium WHIP
// publisher of a grainy 720p canvas (720p held, so it always wants more than the link), its
// viewer in the app on the stage's host.
// - Behind a 1 Mbit/s uplink: with the stage's congestion feedback the publisher fits the link;
//   its viewer gets at least 90 % of the frames it sends and is never frozen over a second after
//   the first 10 s. The same publisher offering no feedback is measured beside it and printed, not
//   held to anything (docs/benchmarks.md, weak links).
// - Behind an uplink that loses 3 % each way with a 60 ms round trip: the stage's NACKs
//   (decision 0080) recover the lost packets, one request a loss rather than werift's ten, so the
//   viewer sees at least 95 % of the frames and the loss costs the publisher about what it lost.
import { loadavg } from 'node:os';
import type { Page } from '@playwright/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  describeSample,
  sentCountsBy,
  startCanvasPublisher,
  stopCanvasPublisher,
  watchCanvasPublisher,
} from '../canvas-publisher';
import { bundleForPage } from '../page-scripts';
import { playback } from '../player';
import type { Product } from '../product';
import { signIn } from '../sign-in';
import { LabBrowsers, startLabProduct } from './lab-fixtures';
import { labSkippedBanner, labSupport } from './lab-support';
import type { LabNamespace } from './lab-topology';
import type { LinkConditions } from './link-conditions';
import type { StageStats } from '../stage-control';
import { NetworkLab } from './network-lab';

const LONG = process.env.TAILCAM_LONG_TESTS === '1';
const support = labSupport();
const PAGES_ORIGIN = 'http://pages.tailcam.test';
const STREAM = 'N954AS';
const UPLINK_KBIT = 1000;
const LOSSY_UPLINK: LinkConditions = { lossPercent: 3, delayMs: 30 };
/** Watched this long after the viewer's first frame; freezes count after the first 10 s. */
const WATCH_MS = 30_000;
const SETTLE_MS = 10_000;
if (!LONG) {
  console.log('[lab] the congestion-feedback case is skipped: set TAILCAM_LONG_TESTS=1 to run it.');
} else if (!support.ok) {
  console.warn(labSkippedBanner('the publisher behind a weak uplink', support.reason));
}

interface Delivery {
  framesSent: number;
  framesShown: number;
  longestFreezeMs: number;
  /** The publisher's own count while watched: packets sent, sent again, NACK messages received. */
  packetsSent: number;
  retransmittedPacketsSent: number;
  nackCount: number;
  /** The stage's NACKs to it while watched (`/_stats`, decision 0080). */
  stageNacks: NackCounts;
}

type NackCounts = NonNullable<StageStats['stages'][string]['publisher']>['nacks'];

/** Each count of `after` less the same count of `before`. */
function since<T extends Record<string, number>>(after: T, before: T): T {
  return Object.fromEntries(
    Object.entries(after).map(([name, value]) => [name, value - (before[name] ?? 0)]),
  ) as T;
}

describe.skipIf(!LONG || !support.ok)('a publisher behind a weak uplink', () => {
  let lab: NetworkLab;
  let product: Product;
  let publicUrl: string;
  let loginToken: string;
  const browsers = new LabBrowsers();
  const figures: string[] = [];

  beforeAll(async () => {
    lab = NetworkLab.create();
    ({ product, publicUrl, loginToken } = await startLabProduct(lab, 'stage', 'lab-congestion'));
  }, 150_000);
  afterEach(async () => {
    await browsers.closeAll();
    await lab.setConditions('publisher', {});
  });
  afterAll(async () => {
    await product?.dispose();
    await lab?.dispose();
    console.log(`[lab] congestion feedback, figures:\n${figures.join('\n')}`);
  });

  const browserIn = (role: LabNamespace, extraArgs: string[] = []) =>
    browsers.launch(lab, role, extraArgs);

  /** The canvas publisher's page, on an origin of its own, in `role`'s namespace. */
  async function publisherPage(role: LabNamespace): Promise<Page> {
    const page = await (await browserIn(role)).newPage();
    const script = await bundleForPage('harness/src/page/canvas-publisher-page.ts');
    await page.route(`${PAGES_ORIGIN}/**`, (route) =>
      route.fulfill({
        contentType: 'text/html; charset=utf-8',
        body: `<!doctype html><meta charset="utf-8"><title>Canvas publisher</title><script>${script}</script>`,
      }),
    );
    await page.goto(`${PAGES_ORIGIN}/`);
    return page;
  }

  /** The stage's NACK counts of the publisher on air (read while it is). */
  async function stageNacks(): Promise<NackCounts> {
    const nacks = (await product.stage.stats()).stages[STREAM]?.publisher?.nacks;
    if (!nacks) throw new Error(`no publisher on ${STREAM}`);
    return nacks;
  }

  /** Publishes from behind the publisher's link as it is set and watches from the stage's host. */
  async function deliver(label: string, withoutFeedback = false): Promise<Delivery> {
    const publisher = await publisherPage('publisher');
    await startCanvasPublisher(publisher, {
      ...product.publishToken(STREAM),
      withoutFeedback,
      grain: true,
      holdResolution: true,
    });
    await expect
      .poll(async () => (await product.stage.stats()).stages[STREAM]?.publisher?.kind, {
        timeout: 20_000,
      })
      .toBe('encoder');
    const viewer = await (await browserIn('stage')).newPage();
    await signIn(viewer, loginToken);
    await viewer.goto(`${publicUrl}/player/${STREAM}`);
    await expect
      .poll(() => playback(viewer).then(({ frames }) => frames), { timeout: 30_000 })
      .toBeGreaterThan(0);
    const sentAtStart = await sentCountsBy(publisher);
    const nacksAtStart = await stageNacks();
    const shownAtStart = (await playback(viewer)).frames;
    const startedAt = performance.now();
    let lastFrames = shownAtStart;
    let lastNewFrameAt = startedAt;
    let longestFreezeMs = 0;
    const watching = watchCanvasPublisher(publisher, {
      maxMs: WATCH_MS + 10_000,
      intervalMs: 2000,
    });
    while (performance.now() - startedAt < WATCH_MS) {
      await viewer.waitForTimeout(100);
      const { frames } = await playback(viewer);
      const now = performance.now();
      if (frames > lastFrames) {
        if (lastNewFrameAt - startedAt >= SETTLE_MS) {
          longestFreezeMs = Math.max(longestFreezeMs, now - lastNewFrameAt);
        }
        lastFrames = frames;
        lastNewFrameAt = now;
      }
    }
    if (lastNewFrameAt - startedAt >= SETTLE_MS) {
      longestFreezeMs = Math.max(longestFreezeMs, performance.now() - lastNewFrameAt);
    }
    const delivery: Delivery = {
      ...since(await sentCountsBy(publisher), sentAtStart),
      framesShown: lastFrames - shownAtStart,
      longestFreezeMs: Math.round(longestFreezeMs),
      stageNacks: since(await stageNacks(), nacksAtStart),
    };
    const samples = await watching;
    await stopCanvasPublisher(publisher);
    for (const sample of samples) console.log(`[lab] ${label}: ${describeSample(sample)}`);
    const measured = await lab.measure('publisher', 'stage', { figures: ['rtt'], pings: 5 });
    const { stageNacks: asked } = delivery;
    figures.push(
      `publisher ${label}: viewer shown ${delivery.framesShown} of ` +
        `${delivery.framesSent} frames sent (${Math.round((100 * delivery.framesShown) / Math.max(delivery.framesSent, 1))} %), ` +
        `longest freeze after ${SETTLE_MS / 1000} s ${delivery.longestFreezeMs} ms; ` +
        `publisher sent ${delivery.packetsSent} packets, ${delivery.retransmittedPacketsSent} again, on ` +
        `${delivery.nackCount} NACKs received; the stage found ${asked.missing} missing, sent ` +
        `${asked.nacks} NACKs asking ${asked.packetsAsked}, ${asked.recovered} came, ` +
        `${asked.givenUp} given up; ` +
        `${lab.describe('publisher', measured).replace(/^\[lab\] /, '')}; load average ${loadavg()
          .map((load) => load.toFixed(2))
          .join(' ')}`,
    );
    console.log(`[lab] ${figures.at(-1)}`);
    await expect
      .poll(async () => (await product.stage.stats()).stages[STREAM]?.publisher?.kind, {
        timeout: 20_000,
      })
      .toBe('camera');
    return delivery;
  }

  it(`lets the viewer of a publisher behind ${UPLINK_KBIT} kbit/s see ≥ 90 % of its frames, never frozen over 1 s after 10 s`, async () => {
    await lab.setConditions('publisher', { rateKbit: UPLINK_KBIT });
    const withFeedback = await deliver(`behind ${UPLINK_KBIT} kbit/s, with feedback`);
    await deliver(`behind ${UPLINK_KBIT} kbit/s, without feedback`, true).catch(
      (error: unknown) => {
        // The figure as before decision 0066 is printed, not held: without feedback anything may happen.
        console.log(`[lab] without feedback: ${String(error)}`);
      },
    );
    expect(withFeedback.framesSent).toBeGreaterThan(100);
    expect(withFeedback.framesShown / withFeedback.framesSent).toBeGreaterThanOrEqual(0.9);
    expect(withFeedback.longestFreezeMs).toBeLessThanOrEqual(1000);
  }, 240_000);

  it("recovers a publisher's 3 % loss with ≤ 2.5 NACKs a lost packet (werift: ten): the viewer sees ≥ 95 % of its frames, never frozen over 1 s after 10 s", async () => {
    await lab.setConditions('publisher', LOSSY_UPLINK);
    const lossy = await deliver('losing 3 % each way, 60 ms round trip');
    const { stageNacks: asked } = lossy;
    expect(lossy.framesSent).toBeGreaterThan(300);
    expect(lossy.framesShown / lossy.framesSent).toBeGreaterThanOrEqual(0.95);
    expect(lossy.longestFreezeMs).toBeLessThanOrEqual(1000);
    // About 3 % of the packets lost on the way in and found missing. Those given up on after
    // four requests are lost padding: without RTX (decision 0067) Chromium sends its probes'
    // padding on the video's own sequence numbers, never resends it, and in the lab every one
    // came in the first 15 s, while its padding was 40 % of the packets.
    expect(asked.missing).toBeGreaterThan(0.01 * lossy.packetsSent);
    expect(asked.recovered + asked.givenUp).toBeGreaterThanOrEqual(0.9 * asked.missing);
    // About one request a lost packet: werift's receiver sent ten, 5 ms apart, for each one,
    // all before a retransmission could come back over a 60 ms round trip.
    expect(lossy.nackCount).toBeLessThanOrEqual(2.5 * asked.missing);
    // What the loss costs the publisher: about what it lost. (Chromium resends a packet once a
    // round trip, so werift's ten requests cost about this too over 60 ms; on loopback they did
    // not, docs/benchmarks.md.)
    expect(lossy.retransmittedPacketsSent).toBeLessThanOrEqual(1.5 * asked.missing);
    expect(lossy.retransmittedPacketsSent).toBeLessThanOrEqual(0.08 * lossy.packetsSent);
  }, 240_000);
});
