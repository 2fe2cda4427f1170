// Per-viewer layers (decision 0069) in the network lab, behind TAILCAM_LONG_TESTS=1: Chromium watches N743AS (a
// simulcast camera: 640x360@30, 320x180@20, 160x90@15) in the app over a viewer link shaped by a
// tbf qdisc, and the stage gives it the layer its link carries (its REMB estimate, layers.ts).
// Each case prints the link's measured conditions and the load average beside its figures
// (docs/benchmarks.md, weak links). Bounds are loose: they tell adapting
// (a layer that fits, playing) from not adapting (0.2 frames a second at 400 kbit/s).
import { loadavg } from 'node:os';
import type { Page } from '@playwright/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { playback, playerVideo } from '../player';
import type { Product } from '../product';
import { signIn } from '../sign-in';
import { LabBrowsers, startLabProduct } from './lab-fixtures';
import { labSkippedBanner, labSupport } from './lab-support';
import type { LabNamespace } from './lab-topology';
import { NetworkLab } from './network-lab';

const LONG = process.env.TAILCAM_LONG_TESTS === '1';
const support = labSupport();
const STREAM = 'N743AS';
/** Each layer's frame rate, by the picture width the viewer decodes. */
const FRAME_RATE_BY_WIDTH: Record<number, number> = { 640: 30, 320: 20, 160: 15 };
/** docs/product.md#when-there-is-no-picture. */
const PAUSED_NOTICE = 'Paused: your connection is too slow for video';
if (!LONG) {
  console.log(
    '[lab] the per-viewer layer cases are skipped: set TAILCAM_LONG_TESTS=1 to run them.',
  );
} else if (!support.ok) {
  console.warn(labSkippedBanner('the per-viewer layer cases', support.reason));
}

interface Sample {
  at: number;
  frames: number;
  width: number;
}

/** What a viewer showed over a stretch of samples. */
interface Stretch {
  seconds: number;
  frameRate: number;
  /** The widths shown, and for how many samples each. */
  widths: Record<number, number>;
  /** The width shown at the end. */
  lastWidth: number;
  longestFreezeMs: number;
}

function stretch(samples: Sample[]): Stretch {
  const first = samples[0];
  const last = samples.at(-1);
  if (first === undefined || last === undefined) throw new Error('no samples');
  const widths: Record<number, number> = {};
  let longestFreezeMs = 0;
  let lastNewFrameAt = first.at;
  let lastFrames = first.frames;
  for (const sample of samples) {
    widths[sample.width] = (widths[sample.width] ?? 0) + 1;
    if (sample.frames > lastFrames) {
      lastFrames = sample.frames;
      lastNewFrameAt = sample.at;
    }
    longestFreezeMs = Math.max(longestFreezeMs, sample.at - lastNewFrameAt);
  }
  const seconds = (last.at - first.at) / 1000;
  return {
    seconds,
    frameRate: (last.frames - first.frames) / Math.max(seconds, 0.001),
    widths,
    lastWidth: last.width,
    longestFreezeMs: Math.round(longestFreezeMs),
  };
}

/**
 * The frame rate of the layers shown over a stretch, each weighted by how long it was shown (a
 * viewer that moved up midway is held to each layer's own rate for its part): the rate the camera
 * really sent each layer at, when measured (`published`, by width; a loaded machine's camera
 * sends fewer than it asks its encoder for), else the rate it asks for.
 */
function layersFrameRate(s: Stretch, published: Record<number, number> = {}): number {
  let samples = 0;
  let sum = 0;
  for (const [width, count] of Object.entries(s.widths)) {
    samples += count;
    const asked = FRAME_RATE_BY_WIDTH[Number(width)] ?? 30;
    sum += count * Math.min(asked, published[Number(width)] ?? asked);
  }
  return samples === 0 ? 30 : sum / samples;
}

const describePublished = (published: Record<number, number>) =>
  Object.entries(published)
    .map(([width, rate]) => `${width} wide ${rate.toFixed(1)}`)
    .join(', ');

const describeStretch = (s: Stretch) =>
  `${s.frameRate.toFixed(1)} frames/s over ${s.seconds.toFixed(0)} s, widths ${JSON.stringify(s.widths)} ` +
  `(samples of 100 ms), longest freeze ${s.longestFreezeMs} ms`;

const loadAverage = () =>
  loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

describe.skipIf(!LONG || !support.ok)('each viewer gets the layer its link carries', () => {
  let lab: NetworkLab;
  let product: Product;
  let publicUrl: string;
  let loginToken: string;
  const browsers = new LabBrowsers();
  const figures: string[] = [];

  beforeAll(async () => {
    lab = NetworkLab.create();
    // The stage logs each viewer's layer changes and the estimate they were made by.
    ({ product, publicUrl, loginToken } = await startLabProduct(lab, 'stage', 'lab-layers', {
      LOG_LEVEL: 'info',
    }));
  }, 150_000);
  afterEach(async () => {
    await browsers.closeAll();
    await lab.setConditions('viewer', {});
  });
  afterAll(async () => {
    await product?.dispose();
    await lab?.dispose();
    console.log(`[lab] per-viewer layers, figures:\n${figures.join('\n')}`);
  });

  async function viewerIn(role: LabNamespace): Promise<Page> {
    const browser = await browsers.launch(lab, role);
    const page = await browser.newPage();
    await signIn(page, loginToken);
    await page.goto(`${publicUrl}/player/${STREAM}`);
    await expect
      .poll(() => playback(page).then(({ frames }) => frames), { timeout: 30_000 })
      .toBeGreaterThan(0);
    return page;
  }

  /** Samples the viewer's frames and picture width every 100 ms for `ms`. */
  async function watch(page: Page, ms: number): Promise<Sample[]> {
    const samples: Sample[] = [];
    const video = playerVideo(page);
    const startedAt = performance.now();
    while (performance.now() - startedAt < ms) {
      const sample = await video.evaluate((element: HTMLVideoElement) => ({
        frames: element.getVideoPlaybackQuality().totalVideoFrames,
        width: element.videoWidth,
      }));
      samples.push({ at: performance.now(), ...sample });
      await page.waitForTimeout(100);
    }
    return samples;
  }

  /**
   * The frame rate the camera sent each of its layers at (by picture width) while `watching`
   * ran: from the frames the stage counted in each.
   */
  async function publishedDuring<T>(
    watching: Promise<T>,
  ): Promise<{ result: T; published: Record<number, number> }> {
    const layerFrames = async () =>
      (await product.stage.stats()).stages[STREAM]?.publisher?.layers ?? [];
    const before = await layerFrames();
    const startedAt = performance.now();
    const result = await watching;
    const after = await layerFrames();
    const seconds = (performance.now() - startedAt) / 1000;
    const published: Record<number, number> = {};
    for (const layer of after) {
      const earlier = before.find((each) => each.rid === layer.rid);
      if (layer.width === null || earlier === undefined) continue;
      published[layer.width] = (layer.frames - earlier.frames) / seconds;
    }
    return { result, published };
  }

  /** Until the viewer shows `width` (or `timeoutMs`): the ms it took, or undefined. */
  async function untilWidth(page: Page, width: number, timeoutMs: number) {
    const startedAt = performance.now();
    const video = playerVideo(page);
    while (performance.now() - startedAt < timeoutMs) {
      if ((await video.evaluate((element: HTMLVideoElement) => element.videoWidth)) === width) {
        return Math.round(performance.now() - startedAt);
      }
      await page.waitForTimeout(100);
    }
    return undefined;
  }

  async function record(label: string, detail: string) {
    const measured = await lab.measure('viewer', 'stage', { figures: ['rtt'], pings: 5 });
    const line =
      `${label}: ${detail}; ${lab.describe('viewer', measured).replace(/^\[lab\] /, '')}; ` +
      `load average ${loadAverage()}`;
    figures.push(line);
    console.log(`[lab] ${line}`);
  }

  it('plays a viewer on 400 kbit/s the highest layer that fits, at its frame rate, never frozen over 1 s after 5 s', async () => {
    await lab.setConditions('viewer', { rateKbit: 400 });
    const page = await viewerIn('viewer');
    const { result: samples, published } = await publishedDuring(watch(page, 25_000));
    const settled = stretch(samples.filter((sample) => sample.at - samples[0]!.at >= 5_000));
    await record(
      'viewer on 400 kbit/s, after its first 5 s',
      `${describeStretch(settled)}; the camera sent ${describePublished(published)} frames/s`,
    );
    expect(settled.lastWidth).toBeLessThan(640);
    expect(settled.frameRate).toBeGreaterThanOrEqual(0.9 * layersFrameRate(settled, published));
    expect(settled.longestFreezeMs).toBeLessThanOrEqual(1_000);
  }, 120_000);

  it('plays a viewer on 2 % loss and 300 ms RTT the highest layer that fits, at its frame rate, never frozen over 1 s after 5 s', async () => {
    await lab.setConditions('viewer', { lossPercent: 2, delayMs: 150 });
    const page = await viewerIn('viewer');
    const { result: samples, published } = await publishedDuring(watch(page, 25_000));
    const settled = stretch(samples.filter((sample) => sample.at - samples[0]!.at >= 5_000));
    await record(
      'viewer on 2 % loss and 300 ms RTT, after its first 5 s',
      `${describeStretch(settled)}; the camera sent ${describePublished(published)} frames/s`,
    );
    expect(settled.frameRate).toBeGreaterThanOrEqual(0.9 * layersFrameRate(settled, published));
    expect(settled.longestFreezeMs).toBeLessThanOrEqual(1_000);
  }, 120_000);

  it('pauses the video of a viewer whose link carries no layer: its picture kept under a notice, never an error, until the link is restored', async () => {
    await lab.setConditions('viewer', { rateKbit: 5_000 });
    const page = await viewerIn('viewer');
    await lab.setConditions('viewer', { rateKbit: 40 });
    const notice = page.getByRole('status').filter({ hasText: PAUSED_NOTICE });
    const startedAt = performance.now();
    await notice.waitFor({ state: 'visible', timeout: 30_000 });
    const pausedAfterMs = Math.round(performance.now() - startedAt);
    expect(await page.getByRole('heading', { name: 'Stream Unavailable' }).count()).toBe(0);
    const video = playerVideo(page);
    expect(await video.evaluate((element: HTMLVideoElement) => element.videoWidth)).toBeGreaterThan(
      0,
    );
    await lab.setConditions('viewer', { rateKbit: 5_000 });
    const restoredAt = performance.now();
    await notice.waitFor({ state: 'hidden', timeout: 30_000 });
    const resumedAfterMs = Math.round(performance.now() - restoredAt);
    const framesBefore = (await playback(page)).frames;
    // The notice goes as the stage moves to the lowest layer, before its key frame arrives:
    // 10 frames of 160x90 at 15 a second take a second or more after it.
    await expect
      .poll(async () => (await playback(page)).frames, { timeout: 10_000 })
      .toBeGreaterThan(framesBefore + 10);
    await record(
      'link cut to 40 kbit/s, then restored',
      `the paused notice after ${pausedAfterMs} ms, gone ${resumedAfterMs} ms after the link was restored`,
    );
  }, 150_000);

  it('moves a viewer whose link drops from 5 Mbit/s to 300 kbit/s to a lower layer, and back up when it is restored', async () => {
    await lab.setConditions('viewer', { rateKbit: 5_000 });
    const page = await viewerIn('viewer');
    expect(await untilWidth(page, 640, 15_000)).toBeDefined();
    await watch(page, 3_000);
    await lab.setConditions('viewer', { rateKbit: 300 });
    const dropped = stretch(await watch(page, 15_000));
    await record('link dropped from 5 Mbit/s to 300 kbit/s, first 15 s', describeStretch(dropped));
    await lab.setConditions('viewer', { rateKbit: 5_000 });
    const backUpMs = await untilWidth(page, 640, 50_000);
    await record(
      'link restored to 5 Mbit/s',
      backUpMs === undefined
        ? 'not on the top layer within 50 s'
        : `top layer after ${backUpMs} ms`,
    );
    // The target is ≤ 1 s and the top layer within 15 s; measured 1.0–3.4 s and 25–40 s on two
    // loaded cores (docs/decisions/0069-viewer-bandwidth-estimate.md: the estimate climbs 8 %
    // a second). Before adapting: a 14.9 s freeze. The bounds tell the two apart.
    expect(dropped.longestFreezeMs).toBeLessThanOrEqual(4_000);
    expect(dropped.lastWidth).toBeLessThan(640);
    expect(backUpMs).toBeDefined();
    expect(backUpMs ?? Infinity).toBeLessThanOrEqual(45_000);
  }, 180_000);

  it('keeps the top layer for one viewer while another is on 400 kbit/s', async () => {
    await lab.setConditions('viewer', { rateKbit: 400 });
    const [slow, fast] = await Promise.all([viewerIn('viewer'), viewerIn('stage')]);
    const [slowSamples, fastSamples] = await Promise.all([
      watch(slow, 20_000),
      watch(fast, 20_000),
    ]);
    const after5 = (samples: Sample[]) =>
      stretch(samples.filter((sample) => sample.at - samples[0]!.at >= 5_000));
    const slowStretch = after5(slowSamples);
    const fastStretch = after5(fastSamples);
    await record(
      'two viewers',
      `on 400 kbit/s ${describeStretch(slowStretch)}; on the stage's host ${describeStretch(fastStretch)}`,
    );
    expect(fastStretch.lastWidth).toBe(640);
    expect(fastStretch.frameRate).toBeGreaterThanOrEqual(0.8 * 30);
    // The viewer on 400 kbit/s: moved down by its receiver reports' loss within its first
    // seconds (its first REMB came 5.5 s in beside another viewer, frozen on the top layer till
    // then, before the loss rule: docs/benchmarks/weak-links.md, "Third round"). Loose: a lower layer,
    // playing at half its rate or better, on two loaded cores.
    expect(slowStretch.lastWidth).toBeLessThan(640);
    expect(slowStretch.frameRate).toBeGreaterThanOrEqual(0.5 * layersFrameRate(slowStretch));
  }, 150_000);
});
