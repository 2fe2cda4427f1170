/**
 * A minimal WHIP answerer for the camera publisher's tests: an HTTP endpoint whose sessions are
 * werift receive-only peers, ICE lite with their candidates in the answer (as the stage's are),
 * and `setUpCameraPublisher`, a camera publisher of N743AS against it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';
import { SYNTHETIC_CAMERA_USER_ID } from '../camera-link';
import { CameraPublisher } from '../cameras/camera-publisher';
import { isVp8KeyFrameStart } from '../codecs/vp8';
import { withSessionIceLite } from '../server/media/sdp/werift-sdp';
import { PUBLISH, testParticipantToken } from './participant-tokens';
import { vp8Codec } from './werift-codecs';

export interface AnswererSession {
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

export interface Answerer {
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

const cleanup: (() => Promise<void>)[] = [];

/** Closes what `setUpCameraPublisher` started (each test file's `afterEach`). */
export async function closeCameraPublishers(): Promise<void> {
  for (const step of cleanup.splice(0).reverse()) await step();
}

/**
 * A camera publisher of N743AS at `fps` against a new answerer, both closed by
 * `closeCameraPublishers`.
 */
export async function setUpCameraPublisher(secret: Uint8Array, fps: number) {
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
