/**
 * One camera publisher against a minimal WHIP answerer written here: an HTTP endpoint whose
 * sessions are werift receive-only peers, ICE lite with their candidates in the answer (as the
 * stage's are). It proves the publishing side on its own: the POST, the token, VP8 frames only
 * while asked for, the key frame on request, the retries and the DELETE.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyParticipantToken } from '@tailcam/protocol/participant-token';
import { SYNTHETIC_CAMERA_USER_ID } from '../camera-link';
import { withSessionIceLite } from '../server/media/sdp/werift-sdp';
import { PUBLISH, testParticipantToken } from '../testing/participant-tokens';
import { waitUntil } from '../testing/wait-until';
import { vp8Codec } from '../testing/werift-codecs';
import { isVp8KeyFrameStart } from '../codecs/vp8';
import { CameraPublisher } from './camera-publisher';

const secret = new TextEncoder().encode('a-camera-publisher-test-secret-of-enough-length');

interface AnswererSession {
  id: string;
  token: string;
  peer: RTCPeerConnection;
  /** Arrival times (performance.now()) of VP8 packets, and of those that open a key frame. */
  videoPackets: number[];
  keyFrames: number[];
  audioPackets: number;
  deleted: boolean;
  /** Sends the publisher a PLI, as the stage does when a viewer joins. */
  sendPli(): Promise<void>;
}

interface Answerer {
  url: string;
  sessions: AnswererSession[];
  /** Statuses to answer the next POSTs with instead of 201. */
  refusals: number[];
  posts: number;
  close(): Promise<void>;
}

async function startAnswerer(): Promise<Answerer> {
  const answerer: Answerer = {
    url: '',
    sessions: [],
    refusals: [],
    posts: 0,
    close: async () => undefined,
  };
  const server = createServer((request, response) => {
    void handle(answerer, request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  answerer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  answerer.close = async () => {
    await Promise.all(answerer.sessions.map((session) => session.peer.close()));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return answerer;
}

async function handle(answerer: Answerer, request: IncomingMessage, response: ServerResponse) {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (request.method === 'DELETE') {
    const session = answerer.sessions.find((s) => request.url?.endsWith(`/${s.id}`));
    if (!session || session.token !== token) return void response.writeHead(404).end();
    session.deleted = true;
    await session.peer.close();
    return void response.writeHead(200).end();
  }
  if (request.method !== 'POST' || request.url !== '/stage/whip/N743AS') {
    return void response.writeHead(404).end();
  }
  answerer.posts += 1;
  const refusal = answerer.refusals.shift();
  if (refusal !== undefined) {
    return void response
      .writeHead(refusal, { 'content-type': 'application/json' })
      .end('{"error":"not now"}');
  }
  if (!token || request.headers['content-type'] !== 'application/sdp') {
    return void response.writeHead(token ? 415 : 401).end();
  }
  let offer = '';
  for await (const chunk of request) offer += String(chunk);

  const peer = new RTCPeerConnection({
    codecs: {
      video: [vp8Codec()],
      audio: [
        new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48_000, channels: 2 }),
      ],
    },
    headerExtensions: { video: [], audio: [] },
    iceServers: [],
    iceLite: true,
    iceUseIpv6: false,
    bundlePolicy: 'max-bundle',
  });
  const session: AnswererSession = {
    id: `session-${answerer.sessions.length + 1}`,
    token,
    peer,
    videoPackets: [],
    keyFrames: [],
    audioPackets: 0,
    deleted: false,
    sendPli: async () => undefined,
  };
  let videoSsrc: number | undefined;
  peer.onTrack.subscribe((track) => {
    track.onReceiveRtp.subscribe((packet) => {
      if (packet.payload.length === 0) return; // padding
      if (track.kind === 'audio') {
        session.audioPackets += 1;
        return;
      }
      videoSsrc = packet.header.ssrc;
      const now = performance.now();
      session.videoPackets.push(now);
      if (isVp8KeyFrameStart(packet.payload)) session.keyFrames.push(now);
    });
  });
  session.sendPli = async () => {
    const receiver = peer.getTransceivers().find((t) => t.kind === 'video')?.receiver;
    if (receiver && videoSsrc !== undefined) await receiver.sendRtcpPLI(videoSsrc);
  };
  answerer.sessions.push(session);
  await peer.setRemoteDescription({ type: 'offer', sdp: offer });
  await peer.setLocalDescription(await peer.createAnswer());
  response
    .writeHead(201, {
      location: `/stage/whip/N743AS/${session.id}`,
      'content-type': 'application/sdp',
    })
    .end(withSessionIceLite(peer.localDescription?.sdp ?? ''));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setUp(fps: number) {
  const answerer = await startAnswerer();
  cleanup.push(() => answerer.close());
  const publisher = new CameraPublisher({
    stageId: 'N743AS',
    streamIndex: 0,
    camera: { width: 320, height: 180, fps, idleMs: 0 },
    whipUrl: new URL('/stage/whip/N743AS', answerer.url),
    issueToken: () =>
      testParticipantToken({
        secret,
        stageUrl: answerer.url,
        participantId: 'camera-test',
        stageId: 'N743AS',
        userId: SYNTHETIC_CAMERA_USER_ID,
        capabilities: PUBLISH,
      }),
  });
  cleanup.push(() => publisher.close());
  return { answerer, publisher };
}

describe('a camera publisher (WHIP, against a minimal answerer)', { timeout: 40_000 }, () => {
  it('publishes with its PUBLISH token, sends VP8 only while video is asked for, and DELETEs its session on close', async () => {
    const { answerer, publisher } = await setUp(30);
    publisher.publish();
    await waitUntil(() => publisher.state === 'published', 'the session connected');
    const [session] = answerer.sessions;
    if (!session) throw new Error('no session');
    const claims = await verifyParticipantToken(session.token, {
      secret,
      stageId: 'N743AS',
      capability: 'publish',
    });
    expect(claims).toMatchObject({
      user_id: SYNTHETIC_CAMERA_USER_ID,
      capabilities: { allow_publish: true, allow_subscribe: false },
    });

    // Nobody watches: the camera draws nothing, the encoder sends nothing.
    await sleep(400);
    expect(session.videoPackets).toHaveLength(0);
    expect(publisher.stats()).toMatchObject({ camera: 'idle', framesDrawn: 1 });

    publisher.setDemand({ video: true, audio: true });
    await waitUntil(() => session.videoPackets.length > 0, 'video');
    expect(session.keyFrames[0]).toBe(session.videoPackets[0]);
    await waitUntil(() => session.audioPackets > 10, 'the cabin sound');
    await waitUntil(() => publisher.stats().framesDrawn > 10, 'frames drawn');
    expect(publisher.stats().framesDrawn).toBeGreaterThan(10);

    publisher.setDemand({ video: false, audio: false });
    await sleep(200);
    const sent = session.videoPackets.length;
    await sleep(300);
    expect(session.videoPackets.length).toBe(sent);
    expect(publisher.stats()).toMatchObject({ state: 'published', sessions: 1, camera: 'idle' });

    await publisher.close();
    expect(session.deleted).toBe(true);
  });

  it('hands the encoder its latest frame at once after a PLI, rather than at the next tick', async () => {
    // One frame a second: the next tick is up to a second away (the PLI alone would wait for it).
    const { answerer, publisher } = await setUp(1);
    publisher.publish();
    publisher.setDemand({ video: true, audio: false });
    await waitUntil(() => (answerer.sessions[0]?.keyFrames.length ?? 0) > 0, 'the first key frame');
    const session = answerer.sessions[0];
    if (!session) throw new Error('no session');
    await sleep(100);

    const delays: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const keyFrames = session.keyFrames.length;
      const asked = performance.now();
      await session.sendPli();
      publisher.requestKeyFrame();
      await waitUntil(() => session.keyFrames.length > keyFrames, 'a key frame', 2_000);
      delays.push((session.keyFrames[keyFrames] ?? Infinity) - asked);
      await sleep(300);
    }
    expect(Math.max(...delays)).toBeLessThan(200);
  });

  it('retries a refused POST with backoff, and waits off air when the stage holds its camera', async () => {
    const { answerer, publisher } = await setUp(30);
    answerer.refusals.push(503, 503);
    publisher.publish();
    await waitUntil(() => publisher.state === 'published', 'published after two refusals');
    expect(answerer.posts).toBe(3);

    // The stage ends the session (here: its peer closes): the publisher comes back by itself, once
    // libwebrtc sees the peer gone (werift says no goodbye: ~6 s, its consent checks failing).
    await answerer.sessions[0]?.peer.close();
    await waitUntil(() => publisher.stats().sessions === 2, 'a second session', 20_000);

    answerer.refusals.push(409);
    publisher.publish();
    await waitUntil(() => publisher.state === 'off-air', 'off air');
    const posts = answerer.posts;
    await sleep(600);
    expect(answerer.posts).toBe(posts);

    publisher.setOnAir(true);
    await waitUntil(() => publisher.stats().sessions === 3, 'back on air');
  });
});
