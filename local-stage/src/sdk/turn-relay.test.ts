/**
 * A viewer whose UDP is blocked still watches, through TURN over TCP (decision 0063): Debian's
 * coturn on loopback with the shared-secret REST scheme, a token carrying the credentials the API
 * makes (`ice_servers`), and the SDK's Stage in Node (`ws` and `@roamhq/wrtc` for the browser's
 * WebSocket and RTCPeerConnection) with relay-only ICE forced on every peer connection it makes,
 * as a browser behind a UDP-blocking firewall has no other path. Loopback cannot block UDP; the
 * network lab (harness/) does, in a browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import wrtc from '@roamhq/wrtc';
import { z } from 'zod';
import { issueParticipantToken, type IceServer } from '@tailcam/protocol/participant-token';
import { turnIceServers } from '@tailcam/protocol/turn';
import { RTCVideoSink, type NodeMediaStreamTrack } from '../cameras/wrtc';
import { coturnMissing, startCoturn, type RunningCoturn } from '../testing/coturn';
import { startStageWithCameras, type StageWithCameras } from '../testing/stage-with-cameras';
import { decodeTimeStripFromI420 } from '../time-strip';
import { StageEvents, StageSubscribeStreamType } from './enums';
import type { RemoteStageStream } from './participant';
import { Stage } from './stage';
import { installBrowserGlobals } from '../testing/browser-globals';

const missing = coturnMissing();
if (missing !== undefined) console.warn(`SKIPPED turn-relay.test.ts: ${missing}`);

const secret = new TextEncoder().encode('a-turn-relay-test-secret-of-enough-length');
const TURN_SECRET = 'a-coturn-static-auth-secret-for-this-test-only';
const STAGE = 'N743AS';

/** What the SDK gave each RTCPeerConnection it made, and the connections themselves. */
const made: { configuration: RTCConfiguration; peer: RTCPeerConnection }[] = [];
let forcedPolicy: RTCIceTransportPolicy = 'all';

class RecordedPeerConnection extends wrtc.RTCPeerConnection {
  constructor(configuration: RTCConfiguration = {}) {
    super({ ...configuration, iceTransportPolicy: forcedPolicy });
    made.push({ configuration, peer: this as unknown as RTCPeerConnection });
  }
}

installBrowserGlobals({ WebSocket, RTCPeerConnection: RecordedPeerConnection });

let coturn: RunningCoturn;
let running: StageWithCameras;
const stages: Stage[] = [];

async function token(participantId: string, iceServers: IceServer[]): Promise<string> {
  return issueParticipantToken({
    secret,
    participantId,
    stageId: STAGE,
    userId: 'user-1',
    attributes: { clientId: participantId },
    capabilities: { publish: false, subscribe: true },
    stageBaseUrl: `${running.url}/stage`,
    ttlSeconds: 60,
    iceServers,
  });
}

function firstFrame(track: MediaStreamTrack): Promise<void> {
  return new Promise((resolve, reject) => {
    const sink = new RTCVideoSink(track as unknown as NodeMediaStreamTrack);
    const timer = setTimeout(() => {
      sink.stop();
      reject(new Error('no decodable frame'));
    }, 15_000);
    sink.onframe = ({ frame }) => {
      if (!decodeTimeStripFromI420(frame)) return;
      clearTimeout(timer);
      sink.stop();
      resolve();
    };
  });
}

/** Joins with the SDK; the ms from join() to the first decoded frame, and the peer it used. */
async function watch(participantToken: string): Promise<{ ms: number; made: (typeof made)[0] }> {
  const before = made.length;
  const stage = new Stage(participantToken, {
    stageStreamsToPublish: () => [],
    shouldPublishParticipant: () => false,
    shouldSubscribeToParticipant: () => [StageSubscribeStreamType.VIDEO],
  });
  stages.push(stage);
  const started = performance.now();
  const video = new Promise<RemoteStageStream>((resolve) =>
    stage.on(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, (_info, streams) => {
      const found = streams.find((stream) => stream.streamType === 'video');
      if (found) resolve(found);
    }),
  );
  await stage.join();
  await firstFrame((await video).mediaStreamTrack);
  const ms = performance.now() - started;
  const peer = made[before];
  if (peer === undefined) throw new Error('the SDK made no peer connection');
  return { ms, made: peer };
}

const candidateStats = z.object({
  candidateType: z.string().optional(),
  protocol: z.string().optional(),
  relayProtocol: z.string().optional(),
});
type CandidateStats = z.infer<typeof candidateStats>;

/** The local and remote candidates of the pair ICE selected. */
async function selectedPair(
  peer: RTCPeerConnection,
): Promise<{ local: CandidateStats; remote: CandidateStats }> {
  const stats = new Map<string, Record<string, unknown>>();
  (await peer.getStats()).forEach((entry: Record<string, unknown>) => {
    if (typeof entry.id === 'string') stats.set(entry.id, entry);
  });
  const pairs = [...stats.values()].filter((entry) => entry.type === 'candidate-pair');
  const transport = [...stats.values()].find((entry) => entry.type === 'transport');
  const pair =
    stats.get(String(transport?.selectedCandidatePairId)) ??
    pairs.find((entry) => entry.state === 'succeeded' && entry.nominated === true);
  if (pair === undefined) throw new Error('no selected candidate pair');
  return {
    local: candidateStats.parse(stats.get(String(pair.localCandidateId)) ?? {}),
    remote: candidateStats.parse(stats.get(String(pair.remoteCandidateId)) ?? {}),
  };
}

beforeAll(async () => {
  if (missing !== undefined) return;
  coturn = await startCoturn({ secret: TURN_SECRET });
  running = await startStageWithCameras({
    secret,
    faultsEnabled: false,
    syntheticCameras: [STAGE],
  });
}, 30_000);

afterAll(async () => {
  for (const stage of stages.splice(0)) stage.leave();
  await running?.close();
  await running?.cameras.close();
  await coturn?.close();
});

describe.skipIf(missing !== undefined)(
  'watching through TURN over TCP (coturn on loopback)',
  () => {
    it("plays with relay-only ICE through the token's TURN-over-TCP server, its credentials from the REST scheme", async () => {
      const iceServers = turnIceServers(
        {
          urls: [`turn:127.0.0.1:${coturn.port}?transport=tcp`],
          secret: TURN_SECRET,
          credentialMinutes: 5,
        },
        'user-1',
      );
      // The first join also waits for the camera's key frame: it is measured by neither.
      forcedPolicy = 'all';
      const warmUp = await watch(await token('warm-up-viewer', []));
      expect((await selectedPair(warmUp.made.peer)).local.candidateType).toBe('host');
      const times = { direct: [] as number[], relayed: [] as number[] };
      for (let round = 0; round < 3; round += 1) {
        forcedPolicy = 'all';
        times.direct.push((await watch(await token(`direct-${round}`, []))).ms);
        forcedPolicy = 'relay';
        const relayed = await watch(await token(`relayed-${round}`, iceServers));
        times.relayed.push(relayed.ms);
        // The SDK gave the peer connection the token's servers, as they came.
        expect(relayed.made.configuration.iceServers).toEqual(iceServers);
        const pair = await selectedPair(relayed.made.peer);
        expect(pair.local).toMatchObject({ candidateType: 'relay', relayProtocol: 'tcp' });
        for (const stage of stages.splice(0)) stage.leave();
      }
      // coturn allocated for the REST username, which it accepted.
      expect(coturn.log()).toContain(
        `user <${iceServers[0]?.username}>: incoming packet ALLOCATE processed, success`,
      );
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]?.toFixed(0);
      console.log(
        `SDK join() → first decoded frame on loopback, median of 3: direct ${median(times.direct)} ms, ` +
          `relay-only through coturn TURN-over-TCP ${median(times.relayed)} ms ` +
          `(direct ${times.direct.map((ms) => ms.toFixed(0)).join(', ')}; ` +
          `relayed ${times.relayed.map((ms) => ms.toFixed(0)).join(', ')})`,
      );
    }, 60_000);
  },
);
