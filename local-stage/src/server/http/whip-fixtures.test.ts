/**
 * The WHIP endpoint as a real encoder meets it: the requests Meetecho's simple-whip-client
 * (GStreamer 1.22) sent in one session, replayed byte for byte with a real PUBLISH token in place
 * of the captured one (../../testing/fixtures/whip-gstreamer/README.md), and every error the
 * endpoint promises (docs/product.md#whip), each followed by a look at `/_stats`: no session is
 * left half-open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageStatsSchema } from '../../control';
import type { RunningStage } from '../start';
import { startTestStage } from '../../testing/test-stage';
import { capturedRequest } from '../../testing/whip-captures';
import {
  PUBLISH,
  testParticipantToken,
  type TestTokenInput,
} from '../../testing/participant-tokens';
import { rawSender, type RawAnswer } from '../../testing/raw-request';

const secret = new TextEncoder().encode('a-whip-fixture-test-secret-of-enough-length');
const CAPTURED_TOKEN = 'secret-token-123';
const STAGE = 'N743AS';
let running: RunningStage;

const send = rawSender(() => running.url);

/** A captured request sent to `path`, with `token` where the encoder had its own. */
function replay(name: string, path: string, token: string): Promise<RawAnswer> {
  const captured = capturedRequest(name);
  expect(captured.headers.authorization).toBe(`Bearer ${CAPTURED_TOKEN}`);
  const headers = {
    ...captured.headers,
    host: new URL(running.url).host,
    authorization: `Bearer ${token}`,
  };
  return send(captured.method, path, headers, captured.body);
}

function publishToken(stageId = STAGE, overrides: Partial<TestTokenInput> = {}): Promise<string> {
  return testParticipantToken({
    secret,
    stageUrl: running.url,
    participantId: `encoder-${crypto.randomUUID()}`,
    stageId,
    userId: `encoder-${stageId}`,
    capabilities: PUBLISH,
    ttlSeconds: 600,
    ...overrides,
  });
}

async function stats() {
  const answer = await send('GET', '/_stats', {});
  expect(answer.status).toBe(200);
  return stageStatsSchema.parse(JSON.parse(answer.text));
}

/** Nothing half-open: no WHIP session connecting and nobody on air, on any stage. */
async function expectNoSessions(): Promise<void> {
  const { stages } = await stats();
  for (const [stageId, stage] of Object.entries(stages)) {
    expect({ stageId, connecting: stage.connectingPublishers, publisher: stage.publisher }).toEqual(
      { stageId, connecting: 0, publisher: null },
    );
  }
}

/** The media sections of an SDP, each as its m-line and attribute lines. */
function sections(sdp: string): { mLine: string; lines: string[] }[] {
  const found: { mLine: string; lines: string[] }[] = [];
  for (const line of sdp.split(/\r?\n/)) {
    if (line.startsWith('m=')) found.push({ mLine: line, lines: [] });
    else found.at(-1)?.lines.push(line);
  }
  return found;
}

function sessionPart(sdp: string): string[] {
  const lines = sdp.split(/\r?\n/);
  const firstMedia = lines.findIndex((line) => line.startsWith('m='));
  return firstMedia < 0 ? lines : lines.slice(0, firstMedia);
}

function expectJsonError(answer: RawAnswer, status: number): void {
  expect({ status: answer.status, body: answer.text }).toMatchObject({ status });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(answer.text)).toEqual({ error: expect.stringMatching(/\w/) });
  // A publisher's page on another origin can read why it was refused.
  expect(answer.headers['access-control-allow-origin']).toBe('*');
}

const offerSdp = () => capturedRequest('1-post-offer-trickle.txt').body.toString('utf8');
const whipPath = (stageId = STAGE) => `/stage/whip/${stageId}`;

function postOffer(token: string | undefined, body: string, contentType = 'application/sdp') {
  return send(
    'POST',
    whipPath(),
    {
      'content-type': contentType,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body,
  );
}

beforeAll(async () => {
  running = await startTestStage({ secret });
});

afterAll(async () => {
  await running.close();
});

describe("GStreamer's simple-whip-client, replayed", () => {
  it('is answered as an encoder needs: 201, the session, an answer accepting its H.264 and Opus; its PATCHes and DELETE work', async () => {
    const token = await publishToken();
    const posted = await replay('1-post-offer-trickle.txt', whipPath(), token);
    expect({ status: posted.status, body: posted.status === 201 ? '' : posted.text }).toEqual({
      status: 201,
      body: '',
    });
    expect(posted.headers['content-type']).toMatch(/^application\/sdp\b/);
    const location = String(posted.headers.location);
    expect(location).toMatch(/^\/stage\/whip\/N743AS\/[A-Za-z0-9-]+$/);
    expect(posted.headers['access-control-allow-origin']).toBe('*');

    const answer = posted.text;
    expect(answer).toMatch(/^v=0\r\n/);
    const media = sections(answer);
    const video = media.find((section) => section.mLine.startsWith('m=video '));
    const audio = media.find((section) => section.mLine.startsWith('m=audio '));
    // The bundle-only video with port 0 is accepted (a rejected m-line would have port 0 too).
    expect(video?.mLine).toMatch(/^m=video [1-9]\d* UDP\/TLS\/RTP\/SAVPF 96$/);
    expect(video?.lines).toContain('a=rtpmap:96 H264/90000');
    const videoFmtp = video?.lines.find((line) => line.startsWith('a=fmtp:96 ')) ?? '';
    expect(videoFmtp).toMatch(/[ ;]packetization-mode=1(;|$)/);
    expect(videoFmtp).toMatch(/[ ;]profile-level-id=42c00c(;|$)/i);
    expect(video?.lines).toContain('a=mid:video1');
    expect(audio?.mLine).toMatch(/^m=audio [1-9]\d* UDP\/TLS\/RTP\/SAVPF 111$/);
    expect(audio?.lines.some((line) => /^a=rtpmap:111 opus\/48000\/2$/i.test(line))).toBe(true);
    expect(audio?.lines).toContain('a=mid:audio0');
    expect(answer).toMatch(/\r\na=group:BUNDLE (audio0 video1|video1 audio0)\r\n/);
    for (const section of [audio, video]) {
      expect(section?.lines).toContain('a=recvonly');
      // The encoder offered actpass: the answer picks a role.
      const setup = section?.lines.find((line) => line.startsWith('a=setup:'));
      expect(setup).toMatch(/^a=setup:(active|passive)$/);
    }
    const iceLite = sessionPart(answer).includes('a=ice-lite');
    const hostCandidates = answer
      .split(/\r\n/)
      .filter((line) => /^a=candidate:\S+ 1 udp \d+ \S+ \d+ typ host/i.test(line));
    expect(iceLite || hostCandidates.length > 0).toBe(true);
    expect((await stats()).stages[STAGE]?.connectingPublishers).toBe(1);

    // Candidates only in PATCHes, no If-Match, TCP and IPv6 link-local among them.
    const candidates = await replay('2-patch-candidates.txt', location, token);
    expect({ status: candidates.status, body: candidates.text }).toEqual({ status: 204, body: '' });
    const ended = await replay('3-patch-end-of-candidates.txt', location, token);
    expect({ status: ended.status, body: ended.text }).toEqual({ status: 204, body: '' });

    const deleted = await replay('4-delete.txt', location, token);
    expect(deleted.status).toBe(200);
    await expectNoSessions();
    const again = await replay('4-delete.txt', location, token);
    expect(again.status).toBe(404);
    const patchAfter = await replay('2-patch-candidates.txt', location, token);
    expect(patchAfter.status).toBe(404);
  });
});

describe('WHIP errors, each leaving nothing half-open', () => {
  it('401 without a token, with a forged one and with an expired one, asking for a Bearer token', async () => {
    const forged = await testParticipantToken({
      secret: new TextEncoder().encode('not-the-stage-secret-but-as-long-as-it-is'),
      stageUrl: running.url,
      participantId: 'forger',
      stageId: STAGE,
      userId: `encoder-${STAGE}`,
      capabilities: PUBLISH,
      ttlSeconds: 600,
    });
    const expired = await publishToken(STAGE, {
      ttlSeconds: 60,
      now: new Date(Date.now() - 10 * 60_000),
    });
    for (const token of [undefined, forged, expired, 'not-a-jwt']) {
      const answer = await postOffer(token, offerSdp());
      expectJsonError(answer, 401);
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer\b/);
      await expectNoSessions();
    }
  });

  it('403 for a SUBSCRIBE token and for a PUBLISH token of another aircraft', async () => {
    const viewerToken = await testParticipantToken({
      secret,
      stageUrl: running.url,
      participantId: 'viewer-1',
      stageId: STAGE,
      ttlSeconds: 600,
    });
    for (const token of [viewerToken, await publishToken('N953AS')]) {
      expectJsonError(await postOffer(token, offerSdp()), 403);
      await expectNoSessions();
    }
  });

  it('404 for an unknown stage and for a session that does not exist', async () => {
    const token = await publishToken();
    const unknownStage = await send(
      'POST',
      '/stage/whip/N000XX',
      { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
      offerSdp(),
    );
    expectJsonError(unknownStage, 404);
    const nowhere = `${whipPath()}/${crypto.randomUUID()}`;
    expectJsonError(await replay('2-patch-candidates.txt', nowhere, token), 404);
    expectJsonError(await replay('4-delete.txt', nowhere, token), 404);
    await expectNoSessions();
  });

  it('415 for an offer or a candidate fragment of the wrong content type', async () => {
    const token = await publishToken();
    for (const type of ['text/plain', 'application/json', '']) {
      expectJsonError(await postOffer(token, offerSdp(), type), 415);
      await expectNoSessions();
    }
    const posted = await postOffer(token, offerSdp());
    expect(posted.status).toBe(201);
    const location = String(posted.headers.location);
    const patch = capturedRequest('2-patch-candidates.txt');
    const wrongPatch = await send(
      'PATCH',
      location,
      { ...patch.headers, 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
      patch.body,
    );
    expectJsonError(wrongPatch, 415);
    expect((await send('DELETE', location, { authorization: `Bearer ${token}` })).status).toBe(200);
    await expectNoSessions();
  });

  it('400 for an SDP that does not parse and for an offer of only H.265 and VP9 video', async () => {
    const token = await publishToken();
    const hevcAndVp9 = offerSdp()
      .replace('m=video 0 UDP/TLS/RTP/SAVPF 96', 'm=video 0 UDP/TLS/RTP/SAVPF 96 98')
      .replace('a=rtpmap:96 H264/90000', 'a=rtpmap:96 H265/90000\r\na=rtpmap:98 VP9/90000')
      .replace(/a=fmtp:96 [^\r]*/, 'a=fmtp:96 profile-id=1;level-id=93');
    expect(hevcAndVp9).not.toContain('H264');
    for (const body of ['hello', 'v=0\r\nthis is not sdp\r\n', '', hevcAndVp9]) {
      const answer = await postOffer(token, body);
      expectJsonError(answer, 400);
      await expectNoSessions();
    }
  });

  it('answers CORS preflights for any origin, exposing Location', async () => {
    const token = await publishToken();
    const preflight = (path: string, method: string) =>
      send('OPTIONS', path, {
        origin: 'http://publisher.example:8000',
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization,content-type',
      });
    const forPost = await preflight(whipPath(), 'POST');
    expect(forPost.status).toBe(204);
    expect(forPost.headers['access-control-allow-origin']).toBe('*');
    expect(commaList(forPost.headers['access-control-allow-methods'])).toContain('post');
    expect(commaList(forPost.headers['access-control-allow-headers'])).toEqual(
      expect.arrayContaining(['authorization', 'content-type']),
    );
    expect(commaList(forPost.headers['access-control-expose-headers'])).toContain('location');
    await expectNoSessions();

    const posted = await postOffer(token, offerSdp());
    const location = String(posted.headers.location);
    for (const method of ['PATCH', 'DELETE']) {
      const forSession = await preflight(location, method);
      expect(forSession.status).toBe(204);
      expect(forSession.headers['access-control-allow-origin']).toBe('*');
      expect(commaList(forSession.headers['access-control-allow-methods'])).toContain(
        method.toLowerCase(),
      );
    }
    expect((await send('DELETE', location, { authorization: `Bearer ${token}` })).status).toBe(200);
    await expectNoSessions();
  });
});

function commaList(value: string | string[] | undefined): string[] {
  return String(value ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '');
}
