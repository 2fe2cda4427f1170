/**
 * Flight data in the picture (docs/flight-data.md, decision 0094), on the player of N953AS in
 * Chromium:
 * - the HUD's lag behind its frame: for each sample, when the HUD showed it against when the frame
 *   it was captured with (the camera's time strip names the same instant) was presented; negative
 *   when the HUD is ahead (the message comes with the frame's packets, before it is decoded);
 * - the bytes the flight data adds: the in-band messages a viewer received a second, each packet
 *   with its UUID, length and the trailer's end;
 * - samples lost with 2 % of the packets to the viewer dropped, with the cameras' repeat count.
 */
import { readInBandMessagesInPage } from '@tailcam/harness/in-band-page';
import { installPageKit } from '@tailcam/harness/page-scripts';
import { median, p95 } from '@tailcam/harness/stats';
import { signedInContext } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';

const STAGE = 'N953AS';
const WATCH_MS = 20_000;
const LOSS_PERCENT = 2;
const LOSS_MS = 30_000;
/** A message's framing in the VP8 trailer (length, UUID), and the trailer's end (length, magic). */
const MESSAGE_FRAMING_BYTES = 2 + 16;
const TRAILER_END_BYTES = 6;

interface Watched {
  /** Per HUD change: when (performance.now) and the sample's instant. */
  hud: { at: number; capturedAt: number }[];
  /** Per presented frame: when (rVFC's now) and its strip's instant. */
  frames: { at: number; strip: number }[];
}

/** Watches the HUD and the presented frames for `ms` (in the page). */
function watch(ms: number): Promise<Watched> {
  return new Promise((resolve) => {
    const hud: Watched['hud'] = [];
    const frames: Watched['frames'] = [];
    const video = document.querySelector('video');
    const kit = (
      window as unknown as {
        TailcamPageKit: { frameStamp(video: HTMLVideoElement): { captureTimeMs: number } | null };
      }
    ).TailcamPageKit;
    const read = () => {
      const captured = document
        .querySelector('[data-testid="flight-hud"]')
        ?.getAttribute('data-captured-at');
      const capturedAt = Number(captured);
      if (captured && hud.at(-1)?.capturedAt !== capturedAt)
        hud.push({ at: performance.now(), capturedAt });
    };
    const observer = new MutationObserver(read);
    observer.observe(document.body, { subtree: true, attributes: true, childList: true });
    const onFrame = (now: number) => {
      const stamp = video && kit.frameStamp(video);
      if (stamp) frames.push({ at: now, strip: stamp.captureTimeMs });
      if (!done) video?.requestVideoFrameCallback(onFrame);
    };
    let done = false;
    video?.requestVideoFrameCallback(onFrame);
    setTimeout(() => {
      done = true;
      observer.disconnect();
      resolve({ hud, frames });
    }, ms);
  });
}

/** In-band messages a page's own Stage receives in `ms` (the SDK's event, as the player has it). */
async function countMessages(
  page: import('@playwright/test').Page,
  ms: number,
): Promise<{ messages: number; payloadBytes: number; instants: number; seconds: number }> {
  const read = await page.evaluate(readInBandMessagesInPage, {
    stageId: STAGE,
    wanted: Number.POSITIVE_INFINITY,
    untilMs: ms,
  });
  // The 0601 packet's time stamp names its instant (repeats share it): after the 16-byte key,
  // its 1-byte BER length, tag 2 and its length 8, the 8 bytes of microseconds (hex: 2 a byte).
  const instants = new Set(read.messages.map((message) => message.payload.slice(38, 54)));
  return {
    messages: read.messages.length,
    payloadBytes: read.messages.reduce((sum, message) => sum + message.payload.length / 2, 0),
    instants: instants.size,
    seconds: read.seconds,
  };
}

export async function runFlight(bench: BenchContext): Promise<BenchRow[]> {
  const context = await signedInContext(bench);
  const stage = bench.product.stage;
  // tsx (esbuild) names the page functions' inner functions with a helper the page lacks.
  await context.addInitScript({ content: 'globalThis.__name ??= (target) => target;' });
  try {
    const page = await context.newPage();
    await page.goto(`/player/${STAGE}`);
    await page.getByTestId('flight-hud').waitFor({ timeout: 20_000 });
    await installPageKit(page);
    const watched = await page.evaluate(watch, WATCH_MS);
    // Each HUD change against the first frame presented whose strip is at or after its instant.
    const lags = watched.hud.flatMap(({ at, capturedAt }) => {
      const frame = watched.frames.find((each) => each.strip >= capturedAt - 0.5);
      return frame ? [at - frame.at] : [];
    });

    await page.goto('/home');
    const clean = await countMessages(page, 10_000);
    await stage.loss({ percent: LOSS_PERCENT, newSubscriptions: true });
    const lossy = await countMessages(page, LOSS_MS);
    await stage.loss({ percent: 0, newSubscriptions: true });

    const bytesPerSecond =
      (clean.payloadBytes + clean.messages * MESSAGE_FRAMING_BYTES) / clean.seconds +
      (clean.messages / clean.seconds) * TRAILER_END_BYTES;
    const expected = Math.floor(lossy.seconds);
    const lost = Math.max(0, expected - lossy.instants);
    return [
      {
        part: 'flight',
        what: `the HUD's lag behind the frame its sample was captured with (${STAGE}, Chromium, ${lags.length} samples; negative: ahead)`,
        target: '≤ one frame (33 ms)',
        median: `${round(median(lags))} ms`,
        p95: `${round(p95(lags.map(Math.abs)))} ms (|lag|)`,
        pass: Math.abs(median(lags)) <= 33 && p95(lags.map(Math.abs)) <= 33,
        note: `${watched.frames.length} frames presented in ${WATCH_MS / 1000} s; HUD changes ${watched.hud.length}`,
      },
      {
        part: 'flight',
        what: 'bytes the flight data adds to a viewer’s video (in-band messages, framing included)',
        target: '≤ 10,240 B/s (IVS’s limit)',
        median: `${round(bytesPerSecond)} B/s`,
        p95: `${round(clean.messages / clean.seconds, 1)} messages/s`,
        pass: bytesPerSecond <= 10_240,
        note: `${clean.messages} messages, ${clean.payloadBytes} payload bytes in ${round(clean.seconds, 1)} s (a sample a second on 3 frames, and the newest on each key frame)`,
      },
      {
        part: 'flight',
        what: `samples lost with ${LOSS_PERCENT} % of the packets to the viewer dropped (repeat count 2), ${round(lossy.seconds)} s`,
        target: '0 lost',
        median: `${lost} of ${expected} lost`,
        p95: `${lossy.instants} instants received`,
        pass: lost === 0,
        note: `${lossy.messages} messages received under loss`,
      },
    ];
  } finally {
    await stage.loss({ percent: 0, newSubscriptions: true }).catch(() => undefined);
    await context.close();
  }
}
