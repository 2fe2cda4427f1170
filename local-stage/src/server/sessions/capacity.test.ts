/**
 * One seat rule for every viewer door (admission.ts): a WHEP player and an app viewer
 * on the signalling socket take seats from the same `STAGE_MAX_SESSIONS` and the same per-account
 * limit, and each door refuses a full stage in its own protocol's words. A WHEP session whose
 * player never connects gives its seat back when its connect window ends. Real sockets and real
 * werift offers; the offers are never completed, as an attacker's would not be.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';
import { testParticipantToken } from '../../testing/participant-tokens';
import { STAGE_ERROR_CODES } from '../../signalling';
import { NodeViewer } from '../../testing/node-viewer';
import { rawRequest } from '../../testing/raw-request';
import { startStageWithCameras, type StageWithCameras } from '../../testing/stage-with-cameras';
import { TOO_MANY_SESSIONS } from './admission';

const secret = new TextEncoder().encode('a-capacity-test-secret-of-enough-length-01');
/** The connect window of the second stage: short, so that its expiry is seen quickly. */
const SHORT_CONNECT_MS = 1_500;
let defaults: StageWithCameras;
let shortWindow: StageWithCameras;
let playerOffer: string;
let playerPeer: RTCPeerConnection;
const viewers: NodeViewer[] = [];

beforeAll(async () => {
  [defaults, shortWindow] = await Promise.all([
    startStageWithCameras({ secret, faultsEnabled: false, syntheticCameras: ['N743AS'] }),
    startStageWithCameras({
      secret,
      faultsEnabled: false,
      syntheticCameras: ['N743AS'],
      limits: { maxSessions: 2, connectTimeoutMs: SHORT_CONNECT_MS },
    }),
  ]);
  // One player's offer, sent many times: the stage answers each and no ICE ever reaches it.
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
}, 40_000);

afterEach(() => {
  for (const viewer of viewers.splice(0)) viewer.close();
});

afterAll(async () => {
  await playerPeer?.close();
  await Promise.all([defaults?.close(), shortWindow?.close()]);
});

function subscribeToken(stage: StageWithCameras, userId: string): Promise<string> {
  return testParticipantToken({ secret, stageUrl: stage.url, stageId: 'N743AS', userId });
}

async function whepOffer(stage: StageWithCameras, userId: string) {
  const answer = await rawRequest(
    stage.url,
    'POST',
    '/stage/whep/N743AS',
    {
      'content-type': 'application/sdp',
      authorization: `Bearer ${await subscribeToken(stage, userId)}`,
    },
    playerOffer,
  );
  return { status: answer.status, text: answer.text };
}

/** A socket viewer's join: the stage's first answer (`joined`, or the join's error). */
async function socketJoin(stage: StageWithCameras, userId: string) {
  const viewer = new NodeViewer(`${stage.url.replace('http', 'ws')}/stage/events`);
  viewers.push(viewer);
  return viewer.join(await subscribeToken(stage, userId));
}

describe('one seat rule for WHEP players and socket viewers', () => {
  it('with 64 WHEP seats held by 8 accounts (never connecting), the 65th socket join is refused as WHEP is: stage at capacity', async () => {
    const accounts = Array.from({ length: 8 }, (_, index) => `holder-${index}`);
    const held = await Promise.all(
      accounts.map(async (userId) => {
        const statuses: number[] = [];
        for (let seat = 0; seat < 8; seat += 1) {
          statuses.push((await whepOffer(defaults, userId)).status);
        }
        return statuses;
      }),
    );
    expect(held.flat()).toEqual(Array.from({ length: 64 }, () => 201));

    const whep = await whepOffer(defaults, 'newcomer-whep');
    expect(whep.status).toBe(503);
    expect(JSON.parse(whep.text)).toEqual({ error: 'The stage is at capacity; try again later' });

    const join = await socketJoin(defaults, 'newcomer-socket');
    expect(join).toMatchObject({
      type: 'error',
      category: 'JOIN_ERROR',
      code: STAGE_ERROR_CODES.STAGE_AT_CAPACITY,
      message: 'Stage at capacity',
    });
    // An account holding 8 WHEP seats is refused by its own limit first, at either door.
    const own = await socketJoin(defaults, 'holder-0');
    expect(own).toMatchObject({
      code: STAGE_ERROR_CODES.TOKEN_NOT_ALLOWED,
      message: TOO_MANY_SESSIONS,
    });
    expect(defaults.stage.stats()).toMatchObject({ whepSessions: 64, participants: [] });
  });

  it('with the seats held by joined sockets, a WHEP offer is refused, and so is the next socket', async () => {
    expect(await socketJoin(shortWindow, 'socket-a')).toMatchObject({ type: 'joined' });
    expect(await socketJoin(shortWindow, 'socket-b')).toMatchObject({ type: 'joined' });
    expect((await whepOffer(shortWindow, 'socket-c')).status).toBe(503);
    expect(await socketJoin(shortWindow, 'socket-d')).toMatchObject({
      code: STAGE_ERROR_CODES.STAGE_AT_CAPACITY,
    });
  });

  it('a WHEP session that never connects gives its seat back when its connect window ends', async () => {
    await expect.poll(() => shortWindow.stage.stats().sockets).toBe(0);
    const startedAt = Date.now();
    expect((await whepOffer(shortWindow, 'unconnected-a')).status).toBe(201);
    expect((await whepOffer(shortWindow, 'unconnected-b')).status).toBe(201);
    expect(await socketJoin(shortWindow, 'waiting')).toMatchObject({
      code: STAGE_ERROR_CODES.STAGE_AT_CAPACITY,
    });
    await expect
      .poll(() => shortWindow.stage.stats().whepSessions, { timeout: 3 * SHORT_CONNECT_MS })
      .toBe(0);
    const heldMs = Date.now() - startedAt;
    expect(heldMs).toBeGreaterThanOrEqual(SHORT_CONNECT_MS - 100);
    expect(heldMs).toBeLessThan(SHORT_CONNECT_MS + 1_000);
    expect(await socketJoin(shortWindow, 'waiting')).toMatchObject({ type: 'joined' });
  });
});
