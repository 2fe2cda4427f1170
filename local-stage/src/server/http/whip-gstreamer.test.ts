/**
 * A real encoder publishing to the stage: Meetecho's simple-whip-client (GStreamer webrtcbin and
 * libnice), as Debian 12 packages it, run as a child process with a live test pattern. It trickles
 * its candidates in PATCHes, offers a bundle-only video m-line and sends DELETE when stopped
 * (SIGINT). The client is run through the launcher scripts/ensure-whip-client.mjs writes (npm test
 * runs it); without it these tests are skipped, saying so.
 *
 * With flight data: scripts/h264-sei-encoder.py encodes with a pad probe that puts each payload it
 * reads in an SEI NAL unit, and the client publishes its RTP (docs/deployment.md); a WHEP viewer
 * reads the messages in the frames it receives.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestStage } from '../../testing/test-stage';
import { testParticipantToken } from '../../testing/participant-tokens';
import { NodeViewer } from '../../testing/node-viewer';
import { stageStatsSchema } from '../../control';
import type { RunningStage } from '../start';
import { createStageLogger } from '../../stage-log';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSpans } from '@tailcam/protocol/recordings-store';
import { Recorder } from '../../recorder/recorder';
import { readSegment } from '../../testing/read-segment';
import { testRecorderOptions } from '../../testing/test-recorder';
import { IVS_SEI_UUID, readSeiMessages, type InBandMessage } from '../../codecs/in-band';
import { FrameAssembler } from '../../codecs/rtp-frames';
import { postWhepOffer, requestKeyFrame, whepPeer } from '../../whep-client';
import { flightDataAt } from '@tailcam/protocol/flight-data/flight';
import { decodeFlightData } from '@tailcam/protocol/flight-data/klv';

const WHIP_CLIENT = fileURLToPath(
  new URL('../../../../node_modules/.cache/tailcam-whip-client/whip-client', import.meta.url),
);
const clientMissing = existsSync(WHIP_CLIENT)
  ? undefined
  : `no GStreamer WHIP client at ${WHIP_CLIENT}: install simple-whip-client (Debian 12: ` +
    'apt-get install simple-whip-client gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly gcc) ' +
    'and run node scripts/ensure-whip-client.mjs';
if (clientMissing) console.warn(`SKIPPED whip-gstreamer.test.ts: ${clientMissing}`);
const SEI_ENCODER = fileURLToPath(
  new URL('../../../../scripts/h264-sei-encoder.py', import.meta.url),
);
const seiEncoderMissing =
  clientMissing ??
  (spawnSync('/usr/bin/python3', ['-c', "import gi; gi.require_version('Gst', '1.0')"]).status === 0
    ? undefined
    : 'no GStreamer for Python (Debian 12: apt-get install python3-gi gir1.2-gstreamer-1.0)');
if (!clientMissing && seiEncoderMissing) {
  console.warn(`SKIPPED whip-gstreamer.test.ts, flight data: ${seiEncoderMissing}`);
}

const secret = new TextEncoder().encode('a-whip-gstreamer-test-secret-of-some-length');
const STAGE = 'N743AS';
const WIDTH = 320;
const HEIGHT = 240;
/** A live SMPTE test pattern, raw, at the size the viewer is to receive. */
const TEST_PATTERN =
  `videotestsrc is-live=true pattern=smpte ! ` +
  `video/x-raw,width=${WIDTH},height=${HEIGHT},framerate=15/1 ! videoconvert ! queue`;
const VP8_PIPELINE =
  `${TEST_PATTERN} ! vp8enc deadline=1 keyframe-max-dist=30 ! rtpvp8pay pt=96 ! queue ! ` +
  'application/x-rtp,media=video,encoding-name=VP8,payload=96';
const H264_PIPELINE =
  `${TEST_PATTERN} ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! ` +
  'video/x-h264,profile=constrained-baseline ! rtph264pay config-interval=-1 pt=96 ! queue ! ' +
  'application/x-rtp,media=video,encoding-name=H264,payload=96';
/** The client's pipeline for an encoder sending RTP to a local port (docs/deployment.md). */
const fromLocalPort = (port: number) =>
  `udpsrc port=${port} caps="application/x-rtp,media=video,encoding-name=H264,` +
  'clock-rate=90000,payload=96" ! rtph264depay ! h264parse ! ' +
  'rtph264pay config-interval=-1 pt=96 ! queue ! ' +
  'application/x-rtp,media=video,encoding-name=H264,payload=96';

let running: RunningStage;
const stageLog: string[] = [];
const cleanups: (() => void)[] = [];

function token(capabilities: { publish: boolean; subscribe: boolean }, userId: string) {
  return testParticipantToken({
    secret,
    stageUrl: running.url,
    stageId: STAGE,
    userId,
    capabilities,
    ttlSeconds: 600,
  });
}

async function stats() {
  const response = await fetch(`${running.url}/_stats`);
  if (!response.ok) throw new Error(`/_stats answered ${response.status}`);
  return stageStatsSchema.parse(await response.json());
}

async function publisherOnAir() {
  return (await stats()).stages[STAGE]?.publisher ?? null;
}

/** The real client publishing `videoPipeline` to the stage; its output kept for the report. */
class WhipClientProcess {
  readonly startedAt = Date.now();
  private readonly child: ChildProcess;
  private output = '';
  private exited: Promise<number | null>;

  constructor(url: string, participantToken: string, videoPipeline: string) {
    this.child = spawn(
      WHIP_CLIENT,
      ['-u', url, '-t', participantToken, '-o', '-V', videoPipeline],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const keep = (chunk: Buffer) => (this.output += chunk.toString());
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    cleanups.push(() => {
      if (this.child.exitCode === null && this.child.signalCode === null)
        this.child.kill('SIGKILL');
    });
  }

  /** What it printed, without the token. */
  get log(): string {
    return this.output.replace(/Bearer Token:\s+\S+/, 'Bearer Token: (left out)');
  }

  /** Ctrl+C, as an operator stops it: it sends DELETE, then exits (bounded). */
  async stop(timeoutMs = 5_000): Promise<number | null> {
    this.child.kill('SIGINT');
    const timedOut = new Promise<'timeout'>((resolve) =>
      setTimeout(() => resolve('timeout'), timeoutMs),
    );
    const ended = await Promise.race([this.exited, timedOut]);
    if (ended === 'timeout') throw new Error(`the client did not exit on SIGINT:\n${this.log}`);
    return ended;
  }
}

/** A UDP port free now. */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

/** A WHEP viewer (werift: nothing decoded) handing each received frame's SEI messages over. */
async function seiViewer(onMessages: (messages: InBandMessage[]) => void): Promise<() => void> {
  const { peer, video } = whepPeer({
    audio: false,
    h264Parameters: 'packetization-mode=1;profile-level-id=42e01f;level-asymmetry-allowed=1',
  });
  const frames = new FrameAssembler(
    'h264',
    90_000,
    (frame) => onMessages(readSeiMessages(frame.data)),
    () => requestKeyFrame(video),
  );
  video.onTrack.subscribe((track) => track.onReceiveRtp.subscribe((rtp) => frames.push(rtp)));
  await peer.setLocalDescription(await peer.createOffer());
  await new Promise((resolve) => setTimeout(resolve, 500)); // loopback: gathered at once
  const answer = await postWhepOffer({
    stageUrl: running.url,
    stageId: STAGE,
    token: await token({ publish: false, subscribe: true }, 'viewer'),
    offer: peer.localDescription?.sdp ?? '',
    timeoutMs: 10_000,
  });
  expect(answer.status).toBe(201);
  await peer.setRemoteDescription({ type: 'answer', sdp: answer.body });
  return () => void peer.close();
}

async function publish(videoPipeline: string): Promise<WhipClientProcess> {
  const publishToken = await token({ publish: true, subscribe: false }, `encoder-${STAGE}`);
  return new WhipClientProcess(`${running.url}/stage/whip/${STAGE}`, publishToken, videoPipeline);
}

/** Waits (bounded) until the client is on air with `mimeType`; how long that took from its start. */
async function onAir(client: WhipClientProcess, mimeType: string): Promise<number> {
  try {
    await expect
      .poll(publisherOnAir, { timeout: 15_000, interval: 100 })
      .toMatchObject({ kind: 'encoder', video: mimeType });
  } catch (error) {
    console.error(`the client's log:\n${client.log}`);
    throw error;
  }
  return Date.now() - client.startedAt;
}

async function expectPacketsGrowing(): Promise<void> {
  const before = (await publisherOnAir())?.videoPackets ?? 0;
  await expect
    .poll(async () => (await publisherOnAir())?.videoPackets ?? 0, { timeout: 5_000 })
    .toBeGreaterThan(before + 10);
}

beforeAll(async () => {
  running = await startTestStage({
    secret,
    syntheticCameras: [],
    log: createStageLogger({
      format: 'pretty',
      destination: { write: (line) => stageLog.push(line) },
    }),
  });
});

afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

afterAll(async () => {
  await running?.close();
});

describe.skipIf(clientMissing !== undefined)('GStreamer simple-whip-client publishing', () => {
  it('goes on air in VP8, a viewer receives the test pattern, and Ctrl+C takes it off air', async () => {
    const client = await publish(VP8_PIPELINE);
    const onAirAfterMs = await onAir(client, 'video/VP8');
    await expectPacketsGrowing();

    const viewer = new NodeViewer(`${running.url.replace('http', 'ws')}/stage/events`);
    cleanups.push(() => viewer.close());
    const joined = await viewer.join(await token({ publish: false, subscribe: true }, 'viewer'));
    expect(joined).toMatchObject({
      type: 'joined',
      participants: [{ userId: `encoder-${STAGE}`, publishing: true, media: ['video'] }],
    });
    const subscribedAt = Date.now();
    await viewer.subscribe();
    await viewer.waitFor(() => viewer.frames.length >= 5, "the encoder's frames", 10_000);
    const firstFrameAt = viewer.frames[0]?.receivedAtMs ?? Number.NaN;
    // The test pattern at its own size, and not a synthetic camera's picture (no time strip).
    expect(viewer.frames.slice(0, 5)).toEqual(
      Array.from({ length: 5 }, () =>
        expect.objectContaining({ width: WIDTH, height: HEIGHT, strip: null }),
      ),
    );
    console.log(
      `simple-whip-client (VP8): on air ${onAirAfterMs} ms after it was started; a viewer's ` +
        `first frame ${firstFrameAt - subscribedAt} ms after subscribing ` +
        `(${firstFrameAt - client.startedAt} ms after the client was started)`,
    );

    const stoppedAt = Date.now();
    await client.stop();
    await expect.poll(publisherOnAir, { timeout: 5_000, interval: 100 }).toBeNull();
    console.log(`simple-whip-client stopped: off air after ${Date.now() - stoppedAt} ms`);
    // Ended by its DELETE, not by the stage noticing the connection gone.
    expect(stageLog.filter((line) => line.includes(`left ${STAGE}`))).toEqual([
      expect.stringMatching(/deleted/),
    ]);
    expect((await stats()).stages[STAGE]?.connectingPublishers).toBe(0);
  }, 60_000);

  it('goes on air in H.264 (constrained baseline) with its packets arriving, and is recorded with no viewer, in fMP4', async () => {
    const client = await publish(H264_PIPELINE);
    const onAirAfterMs = await onAir(client, 'video/H264');
    await expectPacketsGrowing();
    console.log(`simple-whip-client (H.264): on air ${onAirAfterMs} ms after it was started`);

    // The recorder (docs/decisions/0072-recorder.md): a real encoder is recorded, watched or not.
    const root = mkdtempSync(join(tmpdir(), 'tailcam-recorder-h264-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const written: string[] = [];
    const recorder = new Recorder(
      testRecorderOptions({
        stageUrl: running.url,
        secret,
        root,
        mode: 'encoders',
        onSegment: (_stageId, path) => written.push(path),
      }),
    );
    await recorder.start();
    try {
      await expect.poll(() => written.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    } finally {
      await recorder.close();
    }
    const [span] = await readSpans(root, STAGE);
    expect(span?.meta).toEqual({ container: 'mp4', codecs: 'avc1.42c015', publisher: 'encoder' });
    for (const segment of span?.segments ?? []) {
      const read = await readSegment(join(span?.dir ?? '', segment.name));
      expect(read).toMatchObject({ mime: expect.stringContaining('video/mp4'), codec: 'avc' });
      expect({ width: read.width, height: read.height }).toEqual({ width: WIDTH, height: HEIGHT });
      expect(read.types[0]).toBe('key');
      // 15 fps: a whole segment (not the one the recorder's stop cut short) holds its frames.
      if (segment.durationMs >= 900) expect(read.types.length).toBeGreaterThan(12);
    }

    await client.stop();
    await expect.poll(publisherOnAir, { timeout: 5_000, interval: 100 }).toBeNull();
  }, 60_000);

  it.skipIf(seiEncoderMissing !== undefined)(
    "carries flight data: each payload the encoder reads reaches a viewer in an SEI message with IVS's UUID, on three frames",
    async () => {
      const port = await freeUdpPort();
      const encoder = spawn('/usr/bin/python3', [SEI_ENCODER, '--port', String(port)], {
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      let encoderLog = '';
      encoder.stderr?.on('data', (chunk: Buffer) => (encoderLog += chunk.toString()));
      cleanups.push(() => encoder.kill('SIGKILL'));
      const client = await publish(fromLocalPort(port));
      try {
        await onAir(client, 'video/H264');
      } catch (error) {
        console.error(`the encoder's log:\n${encoderLog}`);
        throw error;
      }

      const received: InBandMessage[] = [];
      cleanups.push(await seiViewer((messages) => received.push(...messages)));
      // Once the viewer gets frames, a flight sample a second, as an aircraft's telemetry sends.
      const sent: string[] = [];
      const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
      const sendSample = () => {
        const payload = flightDataAt(STAGE, Date.now());
        sent.push(hex(payload));
        encoder.stdin?.write(`${hex(payload)}\n`);
      };
      // Refused, changing nothing: a line that is not hex, and a payload over 1,024 bytes.
      encoder.stdin?.write(`not hex\n${'ab'.repeat(1_025)}\n`);
      sendSample();
      const timer = setInterval(sendSample, 1_000);
      cleanups.push(() => clearInterval(timer));
      await expect
        .poll(() => new Set(received.map((message) => hex(message.payload))).size, {
          timeout: 10_000,
        })
        .toBeGreaterThanOrEqual(3);
      clearInterval(timer);

      expect(received.every((message) => hex(message.uuid) === hex(IVS_SEI_UUID))).toBe(true);
      // Untouched: every payload received is one sent, a whole 0601 packet of this aircraft.
      for (const message of received) {
        expect(sent).toContain(hex(message.payload));
        expect(decodeFlightData(message.payload)).toMatchObject({
          ok: true,
          telemetry: { tailNumber: STAGE },
        });
      }
      // On the next frame and two after (--repeat 2): the first payload seen whole came three times.
      const counts = new Map<string, number>();
      for (const message of received) {
        counts.set(hex(message.payload), (counts.get(hex(message.payload)) ?? 0) + 1);
      }
      expect([...counts.values()].slice(1, -1)).toEqual(
        Array.from({ length: counts.size - 2 }, () => 3),
      );
      expect(encoderLog).toContain('a line that is not hex, left out');
      expect(encoderLog).toContain('a payload of 1025 bytes (1 to 1024), left out');
      console.log(
        `simple-whip-client with SEI: ${counts.size} flight samples received, ` +
          `${received.length} messages, ${(sent[0]?.length ?? 0) / 2} bytes each`,
      );

      await client.stop();
      await expect.poll(publisherOnAir, { timeout: 5_000, interval: 100 }).toBeNull();
    },
    60_000,
  );
});
