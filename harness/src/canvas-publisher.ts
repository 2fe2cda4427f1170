/**
 * A Chromium WHIP publisher of a noisy canvas (issue 27): 1280x720 at 30 frames a second, each
 * frame a fresh crop of pre-drawn noise, so the encoder always has more to send than the link
 * allows and its send rate shows what the stage's congestion feedback lets it reach. The page
 * publishes with plain RTCPeerConnection and fetch (RFC 9725's POST), as any browser client does.
 * The e2e spec holds it to a loose bound, the bench prints its figures (docs/benchmarks.md).
 */
import type { Page } from '@playwright/test';
import { z } from 'zod';

export interface CanvasPublisherOptions {
  whipUrl: string;
  token: string;
  width?: number;
  height?: number;
  /**
   * Offers neither transport-wide CC nor REMB (their `a=rtcp-fb` and `a=extmap` lines left out):
   * the publisher as the stage left it before issue 27, for the figures before and after.
   */
  withoutFeedback?: boolean;
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
  frameWidth: number | undefined;
  framesPerSecond: number | undefined;
}

const readingSchema = z.object({
  at: z.number(),
  estimate: z.number().optional(),
  target: z.number().optional(),
  bytesSent: z.number(),
  reason: z.string().optional(),
  frameWidth: z.number().optional(),
  framesPerSecond: z.number().optional(),
});

/** Starts publishing from `page` (any page of an http origin); resolves once connected. */
export async function startCanvasPublisher(
  page: Page,
  options: CanvasPublisherOptions,
): Promise<void> {
  await page.evaluate(
    async ({ whipUrl, token, width, height, withoutFeedback }) => {
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      document.body.append(canvas);
      const context = canvas.getContext('2d');
      if (!context) throw new Error('no 2d context');
      // Noise twice the frame's size, drawn once; each frame shows another crop of it.
      const noise = document.createElement('canvas');
      noise.width = width * 2;
      noise.height = height * 2;
      const noiseContext = noise.getContext('2d');
      if (!noiseContext) throw new Error('no 2d context');
      const image = noiseContext.createImageData(noise.width, noise.height);
      const bytes = new Uint32Array(image.data.buffer);
      for (let index = 0; index < bytes.length; index += 1) {
        bytes[index] = (Math.random() * 0xffffffff) | 0xff000000;
      }
      noiseContext.putImageData(image, 0, 0);
      const draw = () => {
        const x = Math.floor(Math.random() * width);
        const y = Math.floor(Math.random() * height);
        context.drawImage(noise, x, y, width, height, 0, 0, width, height);
      };
      draw();
      setInterval(draw, 1000 / 30);
      const stream = canvas.captureStream(30);
      const peer = new RTCPeerConnection();
      const [track] = stream.getVideoTracks();
      if (!track) throw new Error('no canvas track');
      peer.addTransceiver(track, { direction: 'sendonly' });
      await peer.setLocalDescription(await peer.createOffer());
      await new Promise<void>((resolve) => {
        if (peer.iceGatheringState === 'complete') return resolve();
        const timer = setTimeout(resolve, 1000);
        peer.addEventListener('icegatheringstatechange', () => {
          if (peer.iceGatheringState !== 'complete') return;
          clearTimeout(timer);
          resolve();
        });
      });
      const offer = (peer.localDescription?.sdp ?? '')
        .split('\r\n')
        .filter(
          (line) =>
            !withoutFeedback ||
            !/^a=(rtcp-fb:\S+ (transport-cc|goog-remb)|extmap:\S+ \S*(transport-wide-cc|abs-send-time))/.test(
              line,
            ),
        )
        .join('\r\n');
      const response = await fetch(whipUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
        body: offer,
      });
      if (!response.ok) throw new Error(`WHIP POST answered ${response.status}`);
      const resource = new URL(response.headers.get('location') ?? '', whipUrl).href;
      await peer.setRemoteDescription({ type: 'answer', sdp: await response.text() });
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          if (peer.connectionState === 'connected') resolve();
          if (peer.connectionState === 'failed') reject(new Error('the publisher failed'));
        };
        peer.addEventListener('connectionstatechange', check);
        check();
      });
      const reading = async () => {
        const report = await peer.getStats();
        let estimate: number | undefined;
        let outbound: Record<string, unknown> | undefined;
        report.forEach((entry: Record<string, unknown>) => {
          if (entry.type === 'candidate-pair' && typeof entry.availableOutgoingBitrate === 'number')
            estimate = entry.availableOutgoingBitrate;
          if (entry.type === 'outbound-rtp' && entry.kind === 'video') outbound = entry;
        });
        return {
          at: performance.now(),
          estimate,
          target: outbound?.targetBitrate,
          bytesSent: outbound?.bytesSent ?? 0,
          reason: outbound?.qualityLimitationReason,
          frameWidth: outbound?.frameWidth,
          framesPerSecond: outbound?.framesPerSecond,
        };
      };
      const stop = async () => {
        peer.close();
        await fetch(resource, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
      };
      Object.assign(window, {
        tailcamCanvasPublisher: { reading, stop, connectedAt: performance.now() },
      });
    },
    { width: 1280, height: 720, withoutFeedback: false, ...options },
  );
}

/** Stops publishing and ends the WHIP session (DELETE). */
export async function stopCanvasPublisher(page: Page): Promise<void> {
  await page.evaluate(() =>
    (
      window as unknown as { tailcamCanvasPublisher?: { stop(): Promise<void> } }
    ).tailcamCanvasPublisher?.stop(),
  );
}

/**
 * Reads the publisher every `intervalMs` until `until` says stop (it sees every sample), or
 * `maxMs` has passed; returns the samples.
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
    readingSchema.parse(
      await page.evaluate(() => {
        const publisher = (window as unknown as { tailcamCanvasPublisher?: { reading(): unknown } })
          .tailcamCanvasPublisher;
        if (!publisher) throw new Error('no canvas publisher on the page');
        return publisher.reading();
      }),
    );
  const connectedAt = z
    .number()
    .parse(
      await page.evaluate(
        () =>
          (window as unknown as { tailcamCanvasPublisher?: { connectedAt: number } })
            .tailcamCanvasPublisher?.connectedAt,
      ),
    );
  const samples: CanvasPublisherSample[] = [];
  let last = await read();
  const kbps = (bps: number | undefined) => (bps === undefined ? undefined : bps / 1000);
  while (last.at - connectedAt < options.maxMs) {
    await page.waitForTimeout(options.intervalMs ?? 500);
    const now = await read();
    const sample: CanvasPublisherSample = {
      seconds: (now.at - connectedAt) / 1000,
      estimateKbps: kbps(now.estimate),
      targetKbps: kbps(now.target),
      sentKbps: ((now.bytesSent - last.bytesSent) * 8) / Math.max(now.at - last.at, 1),
      qualityLimitationReason: now.reason,
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
    `limited by ${sample.qualityLimitationReason ?? '?'}`
  );
}
