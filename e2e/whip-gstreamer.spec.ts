/**
 * A real encoder in, end to end: Meetecho's simple-whip-client (GStreamer webrtcbin, x264enc,
 * libnice), as Debian 12 packages it, publishes H.264 SMPTE colour bars to N953AS through the
 * app's origin with what `npm run publish-token` prints; a viewer signed in to the app sees the
 * bars instead of the synthetic camera's picture, and the camera's again when the client is
 * stopped (Ctrl+C: it sends DELETE), in the same player, with no 'Connection lost' and no reload.
 *
 * With flight data: scripts/h264-sei-encoder.py's pad probe writes N953AS's 0601 packets into
 * the H.264 as IVS's SEI messages and the client publishes its RTP (docs/deployment.md); a
 * viewer's SDK gets them byte for byte and the player's HUD shows them.
 *
 * The client runs through the launcher scripts/ensure-whip-client.mjs writes (npm test runs it);
 * without it this spec is skipped, saying so.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { installPageKit } from '@tailcam/harness/page-scripts';
import { ROOT } from '@tailcam/harness/product';
import {
  expectHudShowsSent,
  expectSdkReceivesSent,
  SentFlightData,
} from './support/encoder-flight-data';
import { E2E_BASE_URL } from './support/environment';
import {
  countLoads,
  expect,
  expectVideoPlaying,
  playerVideo,
  recordWhenShown,
  signInByApi,
  test,
} from './support/fixtures';
import { localStage, readFrameStamp } from './support/local-stage';
import { publishToken } from './support/whip-publisher';

const STREAM = 'N953AS';
const WHIP_CLIENT = join(ROOT, 'node_modules', '.cache', 'tailcam-whip-client', 'whip-client');
const CLIENT_MISSING =
  `no GStreamer WHIP client at ${WHIP_CLIENT}: install simple-whip-client (Debian 12: apt-get ` +
  'install simple-whip-client gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly gcc) and run ' +
  'node scripts/ensure-whip-client.mjs';
/**
 * SMPTE colour bars, H.264 constrained baseline, with a periodic key frame only every 40 s: the
 * viewer's picture must come from the key frame its join asks for (a PLI), not from the schedule.
 * x264 here repeats the SPS before each slice of a key frame: the stage must open a viewer's
 * video at the key frame's first slice, not its last, or the viewer waits for the next periodic
 * key frame (decision 0054).
 */
const H264_BARS =
  'videotestsrc is-live=true pattern=smpte ! ' +
  'video/x-raw,width=640,height=360,framerate=15/1 ! videoconvert ! queue ! ' +
  'x264enc tune=zerolatency speed-preset=ultrafast key-int-max=600 bitrate=800 ! ' +
  'video/x-h264,profile=constrained-baseline ! rtph264pay config-interval=-1 pt=96 ! queue ! ' +
  'application/x-rtp,media=video,encoding-name=H264,payload=96';
const SEI_ENCODER = join(ROOT, 'scripts', 'h264-sei-encoder.py');
const SEI_ENCODER_MISSING =
  spawnSync('/usr/bin/python3', ['-c', "import gi; gi.require_version('Gst', '1.0')"]).status === 0
    ? undefined
    : 'no GStreamer for Python (Debian 12: apt-get install python3-gi gir1.2-gstreamer-1.0)';
/** The client's pipeline for an encoder sending RTP to a local port (docs/deployment.md). */
const fromLocalPort = (port: number) =>
  `udpsrc port=${port} caps="application/x-rtp,media=video,encoding-name=H264,` +
  'clock-rate=90000,payload=96" ! rtph264depay ! h264parse ! ' +
  'rtph264pay config-interval=-1 pt=96 ! queue ! ' +
  'application/x-rtp,media=video,encoding-name=H264,payload=96';

interface Bars {
  /** Mean colour of the first bar (white) and of the second (yellow). */
  first: [number, number, number];
  second: [number, number, number];
}

/** The mean colours, in the frame the player shows now, where SMPTE bars have their first two. */
async function barColours(page: Page): Promise<Bars | null> {
  await installPageKit(page);
  return playerVideo(page).evaluate((video: HTMLVideoElement) => {
    if (video.videoWidth === 0) return null;
    const bar = video.videoWidth / 7;
    // The middle of a bar, in the top half (the bars fill the top two thirds).
    const mean = (index: number): [number, number, number] => {
      const { data } = window.TailcamPageKit.videoPixels(video, {
        x: Math.round(bar * (index + 0.25)),
        y: Math.round(video.videoHeight * 0.1),
        width: Math.round(bar * 0.5),
        height: Math.round(video.videoHeight * 0.4),
      }) ?? { data: [] };
      let [red, green, blue] = [0, 0, 0];
      for (let offset = 0; offset < data.length; offset += 4) {
        red += data[offset] ?? 0;
        green += data[offset + 1] ?? 0;
        blue += data[offset + 2] ?? 0;
      }
      const pixels = data.length / 4;
      return [red / pixels, green / pixels, blue / pixels];
    };
    return { first: mean(0), second: mean(1) };
  });
}

/** The SMPTE bars: a white (or light grey) bar, then a yellow one. */
function isSmpteBars(bars: Bars | null): boolean {
  if (!bars) return false;
  const [r1, g1, b1] = bars.first;
  const [r2, g2, b2] = bars.second;
  const light = Math.min(r1, g1, b1) > 150 && Math.max(r1, g1, b1) - Math.min(r1, g1, b1) < 30;
  const yellow = Math.min(r2, g2) > 150 && b2 < 80;
  return light && yellow;
}

let client: ChildProcess | undefined;
let clientLog = '';
let encoder: ChildProcess | undefined;

test.afterEach(async () => {
  // Never left publishing: killed, its session is ended by the stage within seconds.
  if (client && client.exitCode === null && client.signalCode === null) client.kill('SIGKILL');
  client = undefined;
  if (encoder && encoder.exitCode === null && encoder.signalCode === null) encoder.kill('SIGKILL');
  encoder = undefined;
  if (clientLog) {
    const body = clientLog.replace(/Bearer Token:\s+\S+/, 'Bearer Token: (left out)');
    await test.info().attach('whip-client.log', { body, contentType: 'text/plain' });
  }
});

test(`GStreamer's simple-whip-client publishing H.264 through the app takes over ${STREAM} for its viewer, and the synthetic camera comes back when it stops`, async ({
  page,
}) => {
  test.skip(!existsSync(WHIP_CLIENT), CLIENT_MISSING);
  test.setTimeout(120_000);
  await expect
    .poll(async () => (await localStage.stats()).stages[STREAM]?.publisher?.kind)
    .toBe('camera');
  await signInByApi(page);
  const connectionLostShown = await recordWhenShown(page, 'Connection lost');
  const loads = countLoads(page);
  await page.goto(`/player/${STREAM}`);
  await expectVideoPlaying(page);
  await expect.poll(async () => (await readFrameStamp(page))?.streamId).toBe(STREAM);
  // The criterion tells the synthetic camera apart.
  expect(isSmpteBars(await barColours(page))).toBe(false);

  const { whipUrl, token } = publishToken(STREAM);
  // The app's origin (as the operator's command names it), not the stage's own port.
  expect(new URL(whipUrl).port).toBe(new URL(E2E_BASE_URL).port);
  expect(new URL(whipUrl).pathname).toBe(`/stage/whip/${STREAM}`);
  const startedAt = Date.now();
  const child = spawn(WHIP_CLIENT, ['-u', whipUrl, '-t', token, '-o', '-V', H264_BARS], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  client = child;
  clientLog = '';
  const keep = (chunk: Buffer) => (clientLog += chunk.toString());
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  await expect
    .poll(async () => (await localStage.stats()).stages[STREAM]?.publisher, { timeout: 20_000 })
    .toMatchObject({ kind: 'encoder', video: 'video/H264' });
  const onAirAfterMs = Date.now() - startedAt;

  // The viewer sees the bars (no time strip), from the key frame its join asked for: well before
  // the encoder's next periodic one, 40 s away.
  await expect
    .poll(async () => isSmpteBars(await barColours(page)), { timeout: 15_000 })
    .toBe(true);
  const barsAfterMs = Date.now() - startedAt;
  expect(await readFrameStamp(page)).toBeNull();
  await expectVideoPlaying(page);
  console.log(
    `simple-whip-client (H.264) through the app: on air ${onAirAfterMs} ms after it was ` +
      `started; its bars in the viewer's player ${barsAfterMs} ms after`,
  );

  const stoppedAt = Date.now();
  child.kill('SIGINT');
  // Ctrl+C: it sends DELETE, then exits.
  await expect.poll(() => child.exitCode ?? child.signalCode, { timeout: 10_000 }).not.toBeNull();
  expect(clientLog).toContain('Disconnecting from server');

  // The synthetic camera again, in the same player.
  await expect
    .poll(async () => (await readFrameStamp(page))?.streamId, { timeout: 20_000 })
    .toBe(STREAM);
  console.log(`the synthetic camera back in the player ${Date.now() - stoppedAt} ms after Ctrl+C`);
  expect(isSmpteBars(await barColours(page))).toBe(false);
  await expectVideoPlaying(page);
  await expect
    .poll(async () => (await localStage.stats()).stages[STREAM]?.publisher?.kind)
    .toBe('camera');
  expect(await connectionLostShown()).toBe(false);
  expect(loads()).toBe(1);
});

/** A UDP port free now. */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

test(`a GStreamer encoder with flight data in SEI (a pad probe) publishing through simple-whip-client has it reach ${STREAM}'s viewers, and the HUD shows it`, async ({
  page,
  context,
}) => {
  test.skip(!existsSync(WHIP_CLIENT), CLIENT_MISSING);
  test.skip(SEI_ENCODER_MISSING !== undefined, SEI_ENCODER_MISSING);
  test.setTimeout(120_000);
  await signInByApi(page);
  await page.goto(`/player/${STREAM}`);
  await expectVideoPlaying(page);

  const port = await freeUdpPort();
  const sei = spawn('/usr/bin/python3', [SEI_ENCODER, '--port', String(port), '--repeat', '2'], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  encoder = sei;
  const { whipUrl, token } = publishToken(STREAM);
  const child = spawn(WHIP_CLIENT, ['-u', whipUrl, '-t', token, '-o', '-V', fromLocalPort(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  client = child;
  clientLog = '';
  const keep = (chunk: Buffer) => (clientLog += chunk.toString());
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  sei.stderr?.on('data', keep);
  await expect
    .poll(async () => (await localStage.stats()).stages[STREAM]?.publisher, { timeout: 20_000 })
    .toMatchObject({ kind: 'encoder', video: 'video/H264' });

  // The aircraft's packets once a second on the encoder's standard input, as its telemetry comes.
  const flightData = new SentFlightData(STREAM);
  flightData.start((payload) => void sei.stdin?.write(`${payload}\n`));
  try {
    await expect
      .poll(async () => isSmpteBars(await barColours(page)), { timeout: 15_000 })
      .toBe(true);
    const shownAt = Date.now();
    await expectSdkReceivesSent(context, STREAM, flightData);
    await expectHudShowsSent(page, STREAM, flightData, shownAt);
  } finally {
    flightData.stop();
  }

  child.kill('SIGINT');
  await expect.poll(() => child.exitCode ?? child.signalCode, { timeout: 10_000 }).not.toBeNull();
  sei.kill('SIGINT');
  // The synthetic camera again, for the specs after.
  await expect
    .poll(async () => (await localStage.stats()).stages[STREAM]?.publisher?.kind, {
      timeout: 20_000,
    })
    .toBe('camera');
});
