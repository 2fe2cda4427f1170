/**
 * What the stage's peer connections announce (peer-network.ts, decision 0062), read from the SDP
 * it sends (a WHEP answer, a socket viewer's offer, a WHIP answer) and proven on loopback: a
 * viewer watches through 127.0.0.2 when that is all the stage announces. A connection through an
 * address only a NAT maps here needs the network lab (harness/).
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { NodeViewer } from '../../../testing/node-viewer';
import { rawRequest } from '../../../testing/raw-request';
import { startStageWithCameras, type StageWithCameras } from '../../../testing/stage-with-cameras';
import { resolvePeerNetwork } from './peer-network';
import { MEDIA_CONNECT_TIMEOUT_MS, MEDIA_UNREACHABLE_MESSAGE } from '../viewer/subscription';

const secret = new TextEncoder().encode('a-peer-network-test-secret-of-enough-length');
const whipOffer = (() => {
  const text = readFileSync(
    new URL('../../../testing/fixtures/whip-gstreamer/1-post-offer-trickle.txt', import.meta.url),
    'latin1',
  );
  return text.slice(text.indexOf('v=0'));
})();

let stages: StageWithCameras[] = [];
let playerOffer: string;
let playerPeer: RTCPeerConnection;
const viewers: NodeViewer[] = [];

/** A stage with the camera of N743AS publishing, announcing what `settings` say. */
async function stageAnnouncing(
  announced: string[],
  announceInterfaces: boolean,
  udpPorts: { min: number; max: number },
): Promise<StageWithCameras> {
  const network = await resolvePeerNetwork(
    { announced, announceInterfaces, udpPorts },
    { peerConnections: 1 },
  );
  const stage = await startStageWithCameras({
    secret,
    faultsEnabled: false,
    syntheticCameras: ['N743AS'],
    network,
  });
  stages.push(stage);
  return stage;
}

function token(stage: StageWithCameras, publish = false): Promise<string> {
  return issueParticipantToken({
    secret,
    participantId: crypto.randomUUID(),
    stageId: 'N743AS',
    userId: publish ? `encoder-${crypto.randomUUID()}` : `viewer-${crypto.randomUUID()}`,
    attributes: {},
    capabilities: { publish, subscribe: !publish },
    stageBaseUrl: `${stage.url}/stage`,
    ttlSeconds: 60,
  });
}

async function post(stage: StageWithCameras, door: 'whep' | 'whip', sdp: string) {
  return rawRequest(
    stage.url,
    'POST',
    `/stage/${door}/N743AS`,
    {
      'content-type': 'application/sdp',
      authorization: `Bearer ${await token(stage, door === 'whip')}`,
    },
    sdp,
  );
}

/** Each `a=candidate` line's address and port, with its transport. */
function candidates(sdp: string): { transport: string; address: string; port: number }[] {
  return [...sdp.matchAll(/^a=candidate:\S+ \d+ (\S+) \d+ (\S+) (\d+) typ host/gm)].map(
    (match) => ({ transport: match[1]!, address: match[2]!, port: Number(match[3]) }),
  );
}

/** The remote address and port of the viewer's working candidate pair. */
async function watchedThrough(viewer: NodeViewer): Promise<unknown> {
  const stats = (await viewer.stats()) as { type: string; id: string; [key: string]: unknown }[];
  // The pair carrying media is writable; its state may read in-progress during a consent check.
  const pair = stats.find((report) => report.type === 'candidate-pair' && report.writable === true);
  const remote = stats.find((report) => report.id === pair?.remoteCandidateId);
  return remote && { address: remote.address, port: remote.port };
}

beforeAll(async () => {
  playerPeer = new RTCPeerConnection({
    codecs: {
      video: [new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90_000 })],
      audio: [],
    },
    iceServers: [],
    iceUseIpv6: false,
  });
  playerPeer.addTransceiver('video', { direction: 'recvonly' });
  await playerPeer.setLocalDescription(await playerPeer.createOffer());
  playerOffer = playerPeer.localDescription?.sdp ?? '';
}, 30_000);

afterEach(async () => {
  for (const viewer of viewers.splice(0)) viewer.close();
  await Promise.all(stages.map((stage) => stage.close()));
  stages = [];
});

afterAll(async () => {
  await playerPeer?.close();
});

describe('the addresses and ports the stage announces', () => {
  it('a WHEP answer, a socket viewer offer and a WHIP answer each carry a candidate for 198.18.0.10 on a port of STAGE_UDP_PORTS', async () => {
    // On top of the interfaces: the camera process reaches the stage through those.
    const stage = await stageAnnouncing(['198.18.0.10'], true, { min: 47100, max: 47199 });
    const inRange = (port: number) => port >= 47100 && port <= 47199;

    const whep = await post(stage, 'whep', playerOffer);
    expect(whep.status).toBe(201);
    const whip = await post(stage, 'whip', whipOffer);
    expect(whip.status).toBe(201);
    const viewer = new NodeViewer(`${stage.url.replace('http', 'ws')}/stage/events`);
    viewers.push(viewer);
    expect(await viewer.join(await token(stage))).toMatchObject({ type: 'joined' });
    await viewer.subscribe();
    const offer = viewer.messages.find((message) => message.type === 'offer');

    for (const sdp of [whep.text, whip.text, offer?.type === 'offer' ? offer.sdp : '']) {
      const announced = candidates(sdp);
      expect(announced).toContainEqual(
        expect.objectContaining({ transport: 'udp', address: '198.18.0.10' }),
      );
      expect(announced.every((candidate) => inRange(candidate.port))).toBe(true);
    }
  });

  it('a viewer on loopback watches through 127.0.0.2, the one address the stage announces', async () => {
    const stage = await stageAnnouncing(['127.0.0.2'], false, { min: 47200, max: 47299 });
    const viewer = new NodeViewer(`${stage.url.replace('http', 'ws')}/stage/events`);
    viewers.push(viewer);
    expect(await viewer.join(await token(stage))).toMatchObject({ type: 'joined' });
    await viewer.subscribe();
    const offer = viewer.messages.find((message) => message.type === 'offer');
    const announced = candidates(offer?.type === 'offer' ? offer.sdp : '');
    expect(announced.map((candidate) => candidate.address)).toEqual(['127.0.0.2']);

    await viewer.waitFor(() => viewer.frames.length >= 3, 'three frames through 127.0.0.2');
    expect(await watchedThrough(viewer)).toEqual({
      address: '127.0.0.2',
      port: announced[0]!.port,
    });
  });

  it('tells a socket viewer none of whose checks reach the stage, 10 s after its answer, with a SUBSCRIBE_ERROR the player shows; a viewer whose checks arrive is left to connect', async () => {
    const stage = await stageAnnouncing(['127.0.0.2'], false, { min: 47600, max: 47699 });
    const eventsUrl = `${stage.url.replace('http', 'ws')}/stage/events`;
    // Its checks go to a port where nothing listens and the stage learns none of its candidates:
    // as a viewer that cannot reach the address announced (a private one behind 1:1 NAT, UDP blocked).
    const unreachable = new NodeViewer(eventsUrl, undefined, 'unreachable');
    // Its checks reach the stage, but a wrong ICE password in its answer keeps the connection from
    // coming up: as a slow viewer on a busy machine, it must not be told its network is at fault.
    const slow = new NodeViewer(eventsUrl, (sdp) =>
      sdp.replace(/^a=ice-pwd:.*$/m, `a=ice-pwd:${'x'.repeat(24)}`),
    );
    viewers.push(unreachable, slow);
    for (const viewer of [unreachable, slow]) {
      expect(await viewer.join(await token(stage))).toMatchObject({ type: 'joined' });
    }
    const answeredAt = Date.now();
    await Promise.all([unreachable.subscribe(), slow.subscribe()]);
    const error = await unreachable.waitForMessage((message) => message.type === 'error', 15_000);
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(MEDIA_CONNECT_TIMEOUT_MS - 1_000);
    expect(error).toMatchObject({
      type: 'error',
      category: 'SUBSCRIBE_ERROR',
      message: MEDIA_UNREACHABLE_MESSAGE,
      fatal: false,
      requestId: expect.any(String),
    });
    expect(unreachable.messages.some((message) => message.type === 'subscriptionEnded')).toBe(
      false,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(slow.peerState).not.toBe('connected');
    expect(slow.messages.filter((message) => message.type === 'error')).toEqual([]);
  }, 25_000);

  it('a WHEP offer that finds every port of the range taken is answered 503, stage at capacity', async () => {
    // Three ports: the camera's WHIP session takes one, two players the others.
    const stage = await stageAnnouncing(['127.0.0.2'], false, { min: 47300, max: 47302 });
    const statuses = [];
    for (let index = 0; index < 3; index += 1) {
      statuses.push((await post(stage, 'whep', playerOffer)).status);
    }
    expect(statuses).toEqual([201, 201, 503]);
    const refused = await post(stage, 'whep', playerOffer);
    expect(JSON.parse(refused.text)).toEqual({
      error: 'The stage is at capacity; try again later',
    });
  });

  it('with one port (STAGE_UDP_PORTS=47400) the camera, two viewers and a WHEP player all share it, and the viewers watch', async () => {
    const stage = await stageAnnouncing(['127.0.0.2'], false, { min: 47400, max: 47400 });
    const watchers = [0, 1].map(() => {
      const viewer = new NodeViewer(`${stage.url.replace('http', 'ws')}/stage/events`);
      viewers.push(viewer);
      return viewer;
    });
    for (const viewer of watchers) {
      expect(await viewer.join(await token(stage))).toMatchObject({ type: 'joined' });
      await viewer.subscribe();
    }
    const whep = await post(stage, 'whep', playerOffer);
    expect(whep.status).toBe(201);
    expect(candidates(whep.text)).toEqual([
      { transport: 'udp', address: '127.0.0.2', port: 47400 },
    ]);

    for (const viewer of watchers) {
      const offer = viewer.messages.find((message) => message.type === 'offer');
      expect(candidates(offer?.type === 'offer' ? offer.sdp : '')).toEqual([
        { transport: 'udp', address: '127.0.0.2', port: 47400 },
      ]);
      await viewer.waitFor(() => viewer.frames.length >= 3, 'three frames through port 47400');
      expect(await watchedThrough(viewer)).toEqual({ address: '127.0.0.2', port: 47400 });
    }
  });

  it('with one port and the interfaces announced, IPv4 and IPv6 share the port number, and a viewer watches', async () => {
    const stage = await stageAnnouncing([], true, { min: 47410, max: 47410 });
    const viewer = new NodeViewer(`${stage.url.replace('http', 'ws')}/stage/events`);
    viewers.push(viewer);
    expect(await viewer.join(await token(stage))).toMatchObject({ type: 'joined' });
    await viewer.subscribe();
    const offer = viewer.messages.find((message) => message.type === 'offer');
    const announced = candidates(offer?.type === 'offer' ? offer.sdp : '');
    expect(announced.map((candidate) => candidate.address)).toEqual(
      stage.stage.network.addresses.map((entry) => entry.address),
    );
    expect(new Set(announced.map((candidate) => candidate.port))).toEqual(new Set([47410]));
    await viewer.waitFor(() => viewer.frames.length >= 3, 'three frames through port 47410');
  });
});
