/**
 * A Chromium WHIP publisher of a noisy canvas (decision 0066): 1280x720 at 30 frames a second on a
 * page of its own origin (page/canvas-publisher-page.ts), so the encoder always has more to send
 * than the link allows and its send rate shows what the stage's congestion feedback lets it
 * reach. The e2e spec holds it to a loose bound, the bench prints its figures (docs/benchmarks.md).
 */
import type { Page } from '@playwright/test';
import { z } from 'zod';
import type { CanvasPublisherPage } from './page/canvas-publisher-page';
import { servePage, type ServedPage } from './page-scripts';

// The page's type, and with it `window.canvasPublisher` for the calls below.
export type { CanvasPublisherPage };

export interface CanvasPublisherOptions {
  whipUrl: string;
  token: string;
  width?: number;
  height?: number;
  /**
   * Offers neither transport-wide CC nor REMB (their `a=rtcp-fb` and `a=extmap` lines left out):
   * the publisher as the stage left it before decision 0066, for the figures before and after.
   */
  withoutFeedback?: boolean;
  /** Grain under a moving bar instead of full-range noise (page/canvas-publisher-page.ts). */
  grain?: boolean;
  /** `maintain-resolution`: the encoder keeps 720p and lowers its frame rate instead. */
  holdResolution?: boolean;
  /** A calm picture with the time strip instead of noise (page/canvas-publisher-page.ts). */
  timeStrip?: { streamIndex: number };
  /** The one video codec offered. */
  videoCodec?: 'VP8' | 'H264';
}

/** One reading of the publisher's own stats. */
export interface CanvasPublisherSample {
  /** Seconds since the publisher connected. */
  seconds: number;
  /** Its congestion controller's estimate, kbit/s (candidate pair's availableOutgoingBitrate). */
  estimateKbps: number | undefined;
  /** Its encoder's target, kbit/s (outbound-rtp targetBitrate). */
  targetKbps: number | undefined;
  /** Video sent since the last reading, kbit/s. */
  sentKbps: number;
  qualityLimitationReason: string | undefined;
  /** Round trip to the stage from its receiver reports, ms. */
  roundTripMs: number | undefined;
  frameWidth: number | undefined;
  framesPerSecond: number | undefined;
}

const readingSchema = z.object({
  at: z.number(),
  connectedAt: z.number(),
  estimate: z.number().optional(),
  target: z.number().optional(),
  bytesSent: z.number(),
  framesSent: z.number(),
  packetsSent: z.number(),
  retransmittedPacketsSent: z.number(),
  nackCount: z.number(),
  roundTripTime: z.number().optional(),
  reason: z.string().optional(),
  frameWidth: z.number().optional(),
  framesPerSecond: z.number().optional(),
});

/** Serves the canvas publisher's page on 127.0.0.1:`port` (0: any free port). */
export function serveCanvasPublisherPage(port = 0): Promise<ServedPage> {
  return servePage('harness/src/page/canvas-publisher-page.ts', 'Canvas publisher', port);
}

/** What the publisher has sent so far, in one reading: video frames, packets, packets sent again, and the NACKs that asked for them. */
export async function sentCountsBy(page: Page): Promise<{
  framesSent: number;
  packetsSent: number;
  retransmittedPacketsSent: number;
  nackCount: number;
}> {
  const { framesSent, packetsSent, retransmittedPacketsSent, nackCount } = readingSchema.parse(
    await page.evaluate(() => window.canvasPublisher.reading()),
  );
  return { framesSent, packetsSent, retransmittedPacketsSent, nackCount };
}

/** Starts publishing from `page` (showing serveCanvasPublisherPage's URL); once connected. */
export async function startCanvasPublisher(
  page: Page,
  options: CanvasPublisherOptions,
): Promise<void> {
  const given = {
    width: 1280,
    height: 720,
    withoutFeedback: false,
    grain: false,
    holdResolution: false,
    ...options,
  };
  await page.evaluate((start) => window.canvasPublisher.start(start), given);
}

/** Stops publishing and ends the WHIP session (DELETE). */
export async function stopCanvasPublisher(page: Page): Promise<void> {
  await page.evaluate(() => window.canvasPublisher.stop());
}

/**
 * Reads the publisher every `intervalMs` until `until` says stop (it sees every sample), or
 * `maxMs` after its connection; returns the samples.
 */
export async function watchCanvasPublisher(
  page: Page,
  options: {
    maxMs: number;
    intervalMs?: number;
    until?: (sample: CanvasPublisherSample) => boolean;
  },
): Promise<CanvasPublisherSample[]> {
  const read = async () =>
    readingSchema.parse(await page.evaluate(() => window.canvasPublisher.reading()));
  const samples: CanvasPublisherSample[] = [];
  let last = await read();
  const kbps = (bps: number | undefined) => (bps === undefined ? undefined : bps / 1000);
  while (last.at - last.connectedAt < options.maxMs) {
    await page.waitForTimeout(options.intervalMs ?? 500);
    const now = await read();
    const sample: CanvasPublisherSample = {
      seconds: (now.at - now.connectedAt) / 1000,
      estimateKbps: kbps(now.estimate),
      targetKbps: kbps(now.target),
      sentKbps: ((now.bytesSent - last.bytesSent) * 8) / Math.max(now.at - last.at, 1),
      qualityLimitationReason: now.reason,
      roundTripMs: now.roundTripTime === undefined ? undefined : now.roundTripTime * 1000,
      frameWidth: now.frameWidth,
      framesPerSecond: now.framesPerSecond,
    };
    samples.push(sample);
    last = now;
    if (options.until?.(sample)) break;
  }
  return samples;
}

/** A sample as one line: what the spec and the bench print. */
export function describeSample(sample: CanvasPublisherSample): string {
  const value = (kbps: number | undefined) => (kbps === undefined ? '?' : kbps.toFixed(0));
  return (
    `t=${sample.seconds.toFixed(1)} s: estimate ${value(sample.estimateKbps)} kbit/s, ` +
    `encoder target ${value(sample.targetKbps)} kbit/s, sent ${value(sample.sentKbps)} kbit/s, ` +
    `${sample.frameWidth ?? '?'} px wide at ${sample.framesPerSecond ?? '?'} fps, ` +
    `limited by ${sample.qualityLimitationReason ?? '?'}, RTT ${value(sample.roundTripMs)} ms`
  );
}
