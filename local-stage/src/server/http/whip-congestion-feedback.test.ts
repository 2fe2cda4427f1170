/**
 * Congestion feedback to a real libwebrtc publisher (decision 0066): `@roamhq/wrtc` publishing VP8 of
 * noise over WHIP to a real stage on loopback. With the stage's transport-wide CC feedback its
 * estimate grows far past what receiver reports alone let it reach; with an aircraft's cap it
 * stays under the cap. The bounds are loose, for a loaded 2-core machine; the figures it prints
 * are in docs/benchmarks.md.
 */
import { loadavg } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePublishMaxKbps } from '../media/publisher/publish-max-bitrate';
import { publishNoiseOn, type NoisePublisher } from '../../testing/noise-publisher';
import { startTestStage } from '../../testing/test-stage';
import type { RunningStage } from '../start';

const secret = new TextEncoder().encode('a-congestion-feedback-test-secret-of-length');
const STAGE = 'N743AS';
/** How long a publisher is watched at most: GCC's first probes and ramp-up fit in it. */
const WATCH_MS = 10_000;
/** How long a publisher without feedback, or under a cap, is watched (~8 %/s creep shows in it). */
const SHORT_WATCH_MS = 5_000;

let running: RunningStage | undefined;
let publisher: NoisePublisher | undefined;

afterEach(async () => {
  await publisher?.close();
  publisher = undefined;
  await running?.close();
  running = undefined;
});

/**
 * A stage with `publishMaxKbps`, a noise publisher on it; its highest estimate over `watchMs`, or
 * until the estimate passes `enoughBps`.
 */
async function highestEstimate(
  label: string,
  options: {
    feedback?: 'all' | 'remb' | 'none';
    publishMaxKbps?: string;
    watchMs?: number;
    enoughBps?: number;
  } = {},
): Promise<{ highest: number; sentKbps: number }> {
  const caps = parsePublishMaxKbps(options.publishMaxKbps);
  if (typeof caps === 'string') throw new Error(caps);
  running = await startTestStage({ secret, publishMaxKbps: caps });
  publisher = await publishNoiseOn({
    secret,
    stageUrl: running.url,
    stageId: STAGE,
    feedback: options.feedback,
  });
  const started = performance.now();
  let highest = 0;
  let first: { at: number; bytes: number } | undefined;
  let last = { at: started, bytes: 0 };
  const watchMs = options.watchMs ?? SHORT_WATCH_MS;
  while (performance.now() - started < watchMs && highest <= (options.enoughBps ?? Infinity)) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rates = await publisher.rates();
    const at = performance.now();
    first ??= { at, bytes: rates.bytesSent };
    last = { at, bytes: rates.bytesSent };
    highest = Math.max(highest, rates.availableOutgoingBitrate ?? 0);
    console.log(
      `${label} t=${((at - started) / 1000).toFixed(1)} s: estimate ${kbps(rates.availableOutgoingBitrate)} kbit/s, ` +
        `limited by ${rates.qualityLimitationReason ?? '?'}`,
    );
  }
  const sentKbps =
    first && last.at > first.at ? ((last.bytes - first.bytes) * 8) / (last.at - first.at) : 0;
  console.log(
    `${label}: highest estimate ${kbps(highest)} kbit/s, sent ${sentKbps.toFixed(0)} kbit/s ` +
      `(load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')})`,
  );
  return { highest, sentKbps };
}

const kbps = (bps: number | undefined) => (bps === undefined ? '?' : (bps / 1000).toFixed(0));

describe('congestion feedback to a libwebrtc WHIP publisher', { timeout: 60_000 }, () => {
  it("lets the publisher's estimate grow far past what it reaches without feedback", async () => {
    const withFeedback = await highestEstimate('with feedback', {
      watchMs: WATCH_MS,
      enoughBps: 1_500_000,
    });
    await publisher?.close();
    publisher = undefined;
    await running?.close();
    running = undefined;
    const without = await highestEstimate('without feedback', { feedback: 'none' });
    // Without feedback libwebrtc creeps up ~8 %/s from 300 kbit/s (~0.45 Mbit/s after 5 s).
    expect(without.highest).toBeLessThan(1_000_000);
    expect(withFeedback.highest).toBeGreaterThan(1_500_000);
    expect(withFeedback.highest).toBeGreaterThan(2 * without.highest);
  });

  it("holds the publisher at or below its aircraft's STAGE_PUBLISH_MAX_KBPS", async () => {
    const capped = await highestEstimate('capped at 400 kbit/s', {
      publishMaxKbps: `${STAGE}=400,N953AS=5000`,
    });
    expect(capped.highest).toBeGreaterThan(0);
    expect(capped.highest).toBeLessThanOrEqual(400_000 * 1.05);
    expect(capped.sentKbps).toBeLessThan(400 * 1.25);
  });

  it('holds a publisher that offers only REMB at or below its cap too', async () => {
    const capped = await highestEstimate('REMB only, capped at 250 kbit/s', {
      feedback: 'remb',
      publishMaxKbps: '250',
    });
    expect(capped.highest).toBeGreaterThan(0);
    expect(capped.highest).toBeLessThanOrEqual(250_000 * 1.05);
  });
});
