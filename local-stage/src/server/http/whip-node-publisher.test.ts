/**
 * A Node publisher that is not ours: werift's own RTCPeerConnection as a WHIP client (sendonly
 * VP8, no STUN server), speaking to the stage over HTTP as any encoder would. Its VP8 comes from
 * libwebrtc: a `@roamhq/wrtc` peer encodes frames marked with a time strip of the publisher's own
 * stream index and sends them, over a loopback connection, to a werift receiver whose packets
 * the publisher sends on. A viewer that reads that mark has seen the publisher's picture.
 */
import { createSocket } from 'node:dgram';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { MediaStreamTrack, RTCPeerConnection, type RTCRtpTransceiver } from 'werift';
import { SYNTHETIC_CAMERA_USER_ID } from '../../camera-link';
import { RTCPeerConnection as WrtcPeerConnection, RTCVideoSource } from '../../cameras/wrtc';
import type { ParticipantDescription } from '../../signalling';
import { startTestStage } from '../../testing/test-stage';
import { NodeViewer } from '../../testing/node-viewer';
import { testParticipantToken } from '../../testing/participant-tokens';
import { waitUntil } from '../../testing/wait-until';
import { vp8Codec } from '../../testing/werift-codecs';
import { writeTimeStripI420 } from '../../time-strip';
import { stageStatsSchema } from '../../control';
import type { RunningStage } from '../start';

const secret = new TextEncoder().encode('a-whip-node-publisher-test-secret-of-length');
const STAGE = 'N743AS';
const VP8 = () => vp8Codec();
/** The connect window of the stranded session's stage. */
const SHORT_CONNECT_MS = 2_000;

let running: RunningStage;
const cleanups: (() => void)[] = [];

function token(
  capabilities: { publish: boolean; subscribe: boolean },
  userId: string,
  stageId = STAGE,
) {
  return testParticipantToken({
    secret,
    stageUrl: running.url,
    stageId,
    userId,
    capabilities,
    ttlSeconds: 600,
  });
}

async function gathered(peer: RTCPeerConnection): Promise<void> {
  if (peer.iceGatheringState === 'complete') return;
  await new Promise<void>((resolve) => {
    const { unSubscribe } = peer.iceGatheringStateChange.subscribe((state) => {
      if (state !== 'complete') return;
      unSubscribe();
      resolve();
    });
  });
}

/** Whether a UDP socket can be bound where the stage had one (it has closed it). */
function portIsFree({ address, port }: { address: string; port: number }): Promise<boolean> {
  const socket = createSocket(address.includes(':') ? 'udp6' : 'udp4');
  return new Promise((resolve) => {
    socket.once('error', () => resolve(false));
    socket.bind(port, address, () => {
      socket.close();
      resolve(true);
    });
  });
}

async function stats() {
  const response = await fetch(`${running.url}/_stats`);
  return stageStatsSchema.parse(await response.json());
}

/**
 * libwebrtc's VP8 of frames carrying a time strip with `streamIndex`, as RTP packets handed to
 * `onPacket`; `requestKeyFrame` passes a publisher's PLI back to the encoder.
 */
async function encodedVideo(streamIndex: number, onPacket: (packet: Buffer) => void) {
  const source = new RTCVideoSource();
  const sender = new WrtcPeerConnection({ iceServers: [] });
  sender.addTransceiver(source.createTrack(), { direction: 'sendonly' });
  const receiver = new RTCPeerConnection({ iceServers: [], codecs: { video: [VP8()] } });
  let transceiver: RTCRtpTransceiver | undefined;
  receiver.onTrack.subscribe((track) => {
    track.onReceiveRtp.subscribe((packet) => onPacket(packet.serialize()));
  });
  receiver.onTransceiverAdded.subscribe((added) => (transceiver = added));

  await sender.setLocalDescription(await sender.createOffer());
  await waitUntil(() => sender.iceGatheringState === 'complete', 'the encoder to gather');
  await receiver.setRemoteDescription({ type: 'offer', sdp: sender.localDescription?.sdp ?? '' });
  await receiver.setLocalDescription(await receiver.createAnswer());
  await gathered(receiver);
  await sender.setRemoteDescription({ type: 'answer', sdp: receiver.localDescription?.sdp ?? '' });

  const width = 320;
  const height = 240;
  let frame = 0;
  const timer = setInterval(() => {
    const data = new Uint8Array((width * height * 3) / 2);
    data.fill(90, 0, width * height);
    data.fill(128, width * height);
    writeTimeStripI420(
      { width, height, data },
      { captureTimeMs: Date.now(), streamIndex, frame: frame++ },
    );
    source.onFrame({ width, height, data });
  }, 1000 / 15);
  return {
    requestKeyFrame: () => {
      const track = transceiver?.receiver.tracks[0];
      if (track?.ssrc !== undefined) void transceiver?.receiver.sendRtcpPLI(track.ssrc);
    },
    close: () => {
      clearInterval(timer);
      sender.close();
      void receiver.close();
    },
  };
}

/** werift as a WHIP client: POST the offer, take the answer, connect; DELETE to stop. */
class WeriftWhipPublisher {
  readonly peer = new RTCPeerConnection({ iceServers: [], codecs: { video: [VP8()], audio: [] } });
  readonly track = new MediaStreamTrack({ kind: 'video' });
  location: string | undefined;
  answer = '';
  private readonly transceiver = this.peer.addTransceiver(this.track, { direction: 'sendonly' });

  constructor(private readonly token: string) {
    cleanups.push(() => void this.peer.close());
  }

  /** POSTs the offer; resolves with the answer's status (the answer is applied when 201). */
  async post(): Promise<number> {
    await this.peer.setLocalDescription(await this.peer.createOffer());
    await gathered(this.peer);
    const response = await fetch(`${running.url}/stage/whip/${STAGE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${this.token}` },
      body: this.peer.localDescription?.sdp,
    });
    const answer = await response.text();
    if (response.status !== 201) return response.status;
    this.location = response.headers.get('location') ?? undefined;
    this.answer = answer;
    await this.peer.setRemoteDescription({ type: 'answer', sdp: answer });
    return response.status;
  }

  /** The stage's host candidate in the answer. */
  stageCandidate(): { address: string; port: number } {
    const match = / udp \d+ (\S+) (\d+) typ host/i.exec(this.answer);
    if (!match?.[1]) throw new Error('no host candidate in the answer');
    return { address: match[1], port: Number(match[2]) };
  }

  onKeyFrameRequest(listener: () => void): void {
    this.transceiver.sender.onPictureLossIndication.subscribe(listener);
  }

  delete(): Promise<Response> {
    return fetch(new URL(this.location ?? '/', running.url), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${this.token}` },
    });
  }
}

/** A publisher with its libwebrtc VP8 running, connected (`userId` says which kind). */
async function publishing(
  streamIndex: number,
  userId = `encoder-${STAGE}`,
): Promise<WeriftWhipPublisher> {
  const publisher = new WeriftWhipPublisher(
    await token({ publish: true, subscribe: false }, userId),
  );
  const video = await encodedVideo(streamIndex, (packet) => publisher.track.writeRtp(packet));
  cleanups.push(video.close);
  publisher.onKeyFrameRequest(video.requestKeyFrame);
  expect(await publisher.post()).toBe(201);
  await waitUntil(() => publisher.peer.connectionState === 'connected', 'ICE and DTLS');
  return publisher;
}

async function viewerOf(participant?: (p: ParticipantDescription) => boolean) {
  const viewer = new NodeViewer(`${running.url.replace('http', 'ws')}/stage/events`);
  cleanups.push(() => viewer.close());
  const joined = await viewer.join(await token({ publish: false, subscribe: true }, 'viewer'));
  if (joined.type !== 'joined') throw new Error(`join refused: ${JSON.stringify(joined)}`);
  const target = joined.participants.find((p) => participant?.(p) ?? true);
  await viewer.subscribe(target);
  return { viewer, joined };
}

/** The participants a viewer was told of leaving and joining, in order. */
function participantChanges(viewer: NodeViewer): string[] {
  return viewer.messages.flatMap((message) =>
    message.type === 'participantJoined'
      ? [`joined ${message.participant.id}`]
      : message.type === 'participantLeft'
        ? [`left ${message.participantId}`]
        : [],
  );
}

beforeAll(async () => {
  running = await startTestStage({ secret });
});

afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

afterAll(async () => {
  await running.close();
});

describe('werift publishing over WHIP', () => {
  it('connects, is on air, and a viewer sees its picture; a second publisher takes over', async () => {
    const first = await publishing(9);
    await expect
      .poll(async () => (await stats()).stages[STAGE]?.publisher, { timeout: 10_000 })
      .toMatchObject({ kind: 'encoder', video: 'video/VP8', videoPackets: expect.any(Number) });
    await expect
      .poll(async () => (await stats()).stages[STAGE]?.publisher?.videoPackets ?? 0)
      .toBeGreaterThan(10);

    const { viewer, joined } = await viewerOf();
    expect(joined).toMatchObject({
      participants: [{ userId: `encoder-${STAGE}`, publishing: true, media: ['video'] }],
    });
    await viewer.waitFor(
      () => viewer.frames.some((frame) => frame.strip?.streamIndex === 9),
      "the first publisher's picture",
    );
    expect(viewer.frames.find((frame) => frame.strip)).toMatchObject({ width: 320, height: 240 });

    const second = await publishing(10);
    // The first session is ended: its resource is gone and its connection is closed.
    await expect.poll(async () => (await first.delete()).status).toBe(404);
    // The stage closed its end: the port of the first session's candidate is free again. (werift
    // sends no DTLS close alert, so the first publisher itself learns it only when its consent
    // checks fail, after about 30 s.)
    await expect.poll(() => portIsFree(first.stageCandidate()), { timeout: 5_000 }).toBe(true);
    const { viewer: later, joined: laterJoined } = await viewerOf();
    const onAir = laterJoined.type === 'joined' ? laterJoined.participants : [];
    expect(onAir).toHaveLength(1);
    await later.waitFor(
      () => later.frames.some((frame) => frame.strip?.streamIndex === 10),
      "the second publisher's picture",
    );
    expect(later.frames.some((frame) => frame.strip?.streamIndex === 9)).toBe(false);
    expect((await stats()).stages[STAGE]).toMatchObject({
      connectingPublishers: 0,
      publisher: { kind: 'encoder', video: 'video/VP8' },
    });

    // The viewer of the first saw it leave, then the second join, once, as the participant a
    // new viewer is shown; subscribing to it, without a rejoin, brings the second's picture.
    const firstId = joined.type === 'joined' ? joined.participants[0]?.id : undefined;
    expect(participantChanges(viewer)).toEqual([`left ${firstId}`, `joined ${onAir[0]?.id}`]);
    const framesBefore = viewer.frames.length;
    await viewer.subscribe(onAir[0]);
    await viewer.waitFor(
      () => viewer.frames.slice(framesBefore).some((frame) => frame.strip?.streamIndex === 10),
      "the second publisher's picture for the first viewer",
    );

    expect(await portIsFree(second.stageCandidate())).toBe(false);
    expect((await second.delete()).status).toBe(200);
    await expect.poll(async () => (await stats()).stages[STAGE]?.publisher).toBeNull();
  }, 60_000);

  it("takes over from the aircraft's synthetic camera: its viewer sees the camera leave and the encoder join, once, and gets its picture", async () => {
    // The camera process's session is a WHIP session whose token names the synthetic camera.
    const camera = await publishing(11, SYNTHETIC_CAMERA_USER_ID);
    const { viewer, joined } = await viewerOf();
    expect(joined).toMatchObject({ participants: [{ attributes: { kind: 'camera' } }] });
    await viewer.waitFor(
      () => viewer.frames.some((frame) => frame.strip?.streamIndex === 11),
      "the camera's picture",
    );

    const encoder = await publishing(12);
    await expect.poll(async () => (await stats()).stages[STAGE]?.publisher?.kind).toBe('encoder');
    const cameraId = joined.type === 'joined' ? joined.participants[0]?.id : undefined;
    const { joined: laterJoined } = await viewerOf();
    const onAir = laterJoined.type === 'joined' ? laterJoined.participants : [];
    expect(onAir).toMatchObject([{ attributes: { kind: 'encoder' } }]);
    await expect
      .poll(() => participantChanges(viewer))
      .toEqual([`left ${cameraId}`, `joined ${onAir[0]?.id}`]);
    const framesBefore = viewer.frames.length;
    await viewer.subscribe(onAir[0]);
    expect(viewer.messages.filter((message) => message.type === 'error')).toEqual([]);
    await viewer.waitFor(
      () => viewer.frames.slice(framesBefore).some((frame) => frame.strip?.streamIndex === 12),
      "the encoder's picture",
    );

    // The encoder stops: the camera, still publishing, is shown again.
    expect((await encoder.delete()).status).toBe(200);
    await expect.poll(async () => (await stats()).stages[STAGE]?.publisher?.kind).toBe('camera');
    expect((await camera.delete()).status).toBe(200);
    await expect.poll(async () => (await stats()).stages[STAGE]?.publisher).toBeNull();
  }, 60_000);

  it('ends a session whose ICE never completes when its connect window ends', async () => {
    // A stage of its own whose connect window is 2 s, not the 10 s default
    // (admission.test.ts holds that figure): the same ending, 8 s sooner.
    const windowed = await startTestStage({
      secret,
      limits: { connectTimeoutMs: SHORT_CONNECT_MS },
    });
    onTestFinished(() => windowed.close());
    const stageId = 'N953AS';
    const strandedToken = await testParticipantToken({
      secret,
      stageUrl: windowed.url,
      stageId,
      userId: 'stranded',
      capabilities: { publish: true, subscribe: false },
      ttlSeconds: 600,
    });
    const stats = async () =>
      stageStatsSchema.parse(await (await fetch(`${windowed.url}/_stats`)).json());
    const stranded = new RTCPeerConnection({ iceServers: [], codecs: { video: [VP8()] } });
    cleanups.push(() => void stranded.close());
    stranded.addTransceiver('video', { direction: 'sendonly' });
    await stranded.setLocalDescription(await stranded.createOffer());
    await gathered(stranded);
    // The offer is sent and the answer never applied: no ICE check ever reaches the stage.
    const sentAt = Date.now();
    const posted = await fetch(`${windowed.url}/stage/whip/${stageId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${strandedToken}` },
      body: stranded.localDescription?.sdp,
    });
    expect(posted.status).toBe(201);
    const postedAt = Date.now();
    expect((await stats()).stages[stageId]?.connectingPublishers).toBe(1);
    await expect
      .poll(async () => (await stats()).stages[stageId]?.connectingPublishers, {
        timeout: SHORT_CONNECT_MS + 5_000,
        interval: 100,
      })
      .toBe(0);
    const reapedAfterMs = Date.now() - postedAt;
    console.log(`a WHIP session that never connected was ended after ${reapedAfterMs} ms`);
    // Not before its window (counted from before the offer was sent), nor long after it.
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(SHORT_CONNECT_MS);
    expect(reapedAfterMs).toBeLessThanOrEqual(SHORT_CONNECT_MS + 2_000);
    const location = posted.headers.get('location') ?? '';
    const gone = await fetch(new URL(location, windowed.url), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${strandedToken}` },
    });
    expect(gone.status).toBe(404);
    expect((await stats()).stages[stageId]?.publisher).toBeNull();
  }, 30_000);
});
