/**
 * The WHEP endpoint's refusals and its session's life (docs/decisions/0055-whep-playback.md),
 * against the stage with its camera publishing N743AS (VP8). The offers are werift's, as a
 * player's would be; the happy path with frames is key-frames.test.ts and e2e/whep-play.spec.ts.
 * Each refusal leaves no session and no peer connection behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';
import { PUBLISH, SUBSCRIBE, testParticipantToken } from '../../testing/participant-tokens';
import { turnRestCredential } from '@tailcam/protocol/turn';
import { startStageWithCameras, type StageWithCameras } from '../../testing/stage-with-cameras';

const secret = new TextEncoder().encode('a-whep-endpoint-test-secret-of-enough-length');
const TURN_SECRET = 'a-whep-endpoint-test-turn-secret-of-enough-length';
const TURN_URLS = ['turn:turn.example:3478?transport=tcp', 'turns:turn.example:5349?transport=tcp'];
let running: StageWithCameras;
const peers: RTCPeerConnection[] = [];

beforeAll(async () => {
  running = await startStageWithCameras({
    secret,
    faultsEnabled: false,
    syntheticCameras: ['N743AS'],
    limits: { sessionsPerUser: 2 },
    turn: { urls: TURN_URLS, secret: TURN_SECRET, credentialMinutes: 10 },
  });
}, 30_000);

afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.close()));
  await running.close();
});

function token(
  stageId: string,
  options: { publish?: boolean; userId?: string; secret?: Uint8Array } = {},
): Promise<string> {
  return testParticipantToken({
    secret: options.secret ?? secret,
    stageUrl: running.url,
    stageId,
    userId: options.userId ?? 'operator-player-test',
    capabilities: options.publish ? PUBLISH : SUBSCRIBE,
  });
}

/** A player's offer (receive-only video) in `mimeType`. */
async function offer(mimeType = 'video/VP8'): Promise<string> {
  const peer = new RTCPeerConnection({
    codecs: {
      video: [
        new RTCRtpCodecParameters({
          mimeType,
          clockRate: 90_000,
          ...(mimeType === 'video/H264'
            ? { parameters: 'packetization-mode=1;profile-level-id=42e01f' }
            : {}),
        }),
      ],
      audio: [],
    },
    iceServers: [],
    iceUseIpv6: false,
  });
  peers.push(peer);
  peer.addTransceiver('video', { direction: 'recvonly' });
  await peer.setLocalDescription(await peer.createOffer());
  return peer.localDescription?.sdp ?? '';
}

async function post(
  stageId: string,
  bearer: string | undefined,
  body: string,
  type = 'application/sdp',
) {
  const response = await fetch(`${running.url}/stage/whep/${stageId}`, {
    method: 'POST',
    headers: {
      'content-type': type,
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    location: response.headers.get('location'),
    link: response.headers.get('link'),
  };
}

const nothingLeft = () =>
  expect(running.stage.stats()).toMatchObject({ whepSessions: 0, peerConnections: 0 });

describe('WHEP refusals', () => {
  it('401 for no, forged and expired tokens; 403 for a PUBLISH token and another aircraft', async () => {
    const vp8 = await offer();
    expect((await post('N743AS', undefined, vp8)).status).toBe(401);
    const forged = await token('N743AS', { secret: new TextEncoder().encode('x'.repeat(40)) });
    expect((await post('N743AS', forged, vp8)).status).toBe(401);
    const publishing = await post('N743AS', await token('N743AS', { publish: true }), vp8);
    expect(publishing).toMatchObject({ status: 403 });
    expect(JSON.parse(publishing.text)).toEqual({
      error: 'The token does not allow watching (it is a PUBLISH token)',
    });
    const other = await post('N743AS', await token('N953AS'), vp8);
    expect(JSON.parse(other.text)).toEqual({
      error: 'The token is for another stage than N743AS',
    });
    nothingLeft();
  });

  it('404 unknown aircraft, 415 another type, 400 no SDP or no codec the aircraft sends, 503 nothing on air', async () => {
    const vp8 = await offer();
    expect((await post('N000XX', await token('N743AS'), vp8)).status).toBe(404);
    expect((await post('N743AS', await token('N743AS'), vp8, 'text/plain')).status).toBe(415);
    expect((await post('N743AS', await token('N743AS'), 'hello')).status).toBe(400);
    const h264 = await post('N743AS', await token('N743AS'), await offer('video/H264'));
    expect(h264.status).toBe(400);
    expect(JSON.parse(h264.text)).toEqual({
      error: 'No acceptable video codec in the offer: this aircraft sends VP8',
    });
    // N953AS has no camera in this stage, and no encoder publishes there.
    const empty = await post('N953AS', await token('N953AS'), vp8);
    expect(empty.status).toBe(503);
    nothingLeft();
  });
});

describe('a WHEP session', () => {
  it('is answered, counts against its account, and ends with its DELETE (the same token only)', async () => {
    const bearer = await token('N743AS', { userId: 'operator-limit' });
    const first = await post('N743AS', bearer, await offer());
    expect(first.status).toBe(201);
    expect(first.location).toMatch(/^\/stage\/whep\/N743AS\/[0-9a-f-]{36}$/);
    expect(first.text).toMatch(/^a=ice-lite\r?$/m);
    expect(first.text).toMatch(/^a=setup:passive\r?$/m);
    expect(first.text).toMatch(/^a=rtpmap:\d+ VP8\/90000/m);
    // RFC 9725 §4.6: the TURN servers with credentials for the token's user, one Link per URL.
    const links = (first.link ?? '').split(/,\s*(?=<)/);
    const username = /username="(\d+:operator-limit)"/.exec(links[0] ?? '')?.[1] ?? '';
    const expiry = Number(username.split(':')[0]);
    expect(expiry - Date.now() / 1000).toBeGreaterThan(9 * 60);
    expect(expiry - Date.now() / 1000).toBeLessThanOrEqual(10 * 60);
    const { credential } = turnRestCredential(TURN_SECRET, 'operator-limit', expiry);
    expect(links).toEqual(
      TURN_URLS.map(
        (url) =>
          `<${url}>; rel="ice-server"; username="${username}"; credential="${credential}"; credential-type="password"`,
      ),
    );
    // On OPTIONS with a token this door takes (a client that gathers before it posts), the
    // same; never to a browser's preflight, which carries no token, nor for another's token.
    const options = async (authorization?: string) => {
      const answer = await fetch(`${running.url}/stage/whep/N743AS`, {
        method: 'OPTIONS',
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(answer.status).toBe(204);
      return answer.headers.get('link');
    };
    expect(await options(`Bearer ${bearer}`)).toMatch(
      /^<turn:turn\.example:3478\?transport=tcp>; rel="ice-server"; username="\d+:operator-limit"/,
    );
    expect(await options()).toBeNull();
    expect(await options(`Bearer ${await token('N743AS', { publish: true })}`)).toBeNull();
    expect(
      await options(
        `Bearer ${await token('N743AS', { secret: new TextEncoder().encode('x'.repeat(40)) })}`,
      ),
    ).toBeNull();
    const second = await post('N743AS', bearer, await offer());
    expect(second.status).toBe(201);
    // Two sessions is this stage's per-account limit (socket sessions count too).
    const third = await post('N743AS', bearer, await offer());
    expect(third.status).toBe(429);
    expect(running.stage.stats().whepSessions).toBe(2);

    const end = (location: string | null, as: string) =>
      fetch(`${running.url}${location}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${as}` },
      }).then((response) => response.status);
    expect(await end(first.location, await token('N743AS', { userId: 'operator-limit' }))).toBe(
      403,
    );
    expect(await end(first.location, bearer)).toBe(200);
    expect(await end(first.location, bearer)).toBe(404);
    expect(await end(second.location, bearer)).toBe(200);
    nothingLeft();
  });
});

describe("a WHEP session's trickle PATCHes", () => {
  it('are taken 200 times; the 201st is answered 429 with a reason and the session goes on', async () => {
    const bearer = await token('N743AS', { userId: 'operator-trickle' });
    const posted = await post('N743AS', bearer, await offer());
    expect(posted.status).toBe(201);
    const patch = () =>
      fetch(`${running.url}${posted.location}`, {
        method: 'PATCH',
        headers: {
          'content-type': 'application/trickle-ice-sdpfrag',
          authorization: `Bearer ${bearer}`,
        },
        body: 'a=candidate:1 1 UDP 2130706431 192.0.2.1 50000 typ host\r\n',
      });
    const statuses: number[] = [];
    for (let index = 0; index < 200; index += 1) statuses.push((await patch()).status);
    expect(statuses.filter((status) => status !== 204)).toEqual([]);
    const refused = await patch();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: 'Too many trickle ICE updates for this session (at most 200)',
    });
    expect(running.stage.stats().whepSessions).toBe(1);
    const ended = await fetch(`${running.url}${posted.location}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(ended.status).toBe(200);
    nothingLeft();
  });
});
