/**
 * Kept as one file: its cases share one stage and its cameras, which take seconds to start.
 *
 * The local stage's doors driven as clients drive them: joins over the socket, the camera link,
 * the self-check and the fault routes, against one stage for the file.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import WebSocket from 'ws';
import {
  CAMERA_LINK_PATH,
  issueCameraLinkToken,
  SYNTHETIC_CAMERA_USER_ID,
} from '../../camera-link';
import { CameraPublisher } from '../../cameras/camera-publisher';
import { NodeViewer } from '../../testing/node-viewer';
import { startStageWithCameras } from '../../testing/stage-with-cameras';
import { startLocalStage, type RunningStage } from '../start';
import { DTLS_HANDSHAKE_TIMEOUT_MS } from '../media/viewer/subscription';

const secret = new TextEncoder().encode('a-local-stage-test-secret-of-enough-length');
let running: RunningStage;
let eventsUrl: string;
let viewerCount = 0;
const viewers: NodeViewer[] = [];

async function tokenFor(
  stageId: string,
  overrides: Partial<Parameters<typeof issueParticipantToken>[0]> = {},
): Promise<string> {
  viewerCount += 1;
  return issueParticipantToken({
    secret,
    participantId: `viewer-${viewerCount}`,
    stageId,
    userId: 'user-1',
    attributes: { clientId: `client-${viewerCount}` },
    capabilities: { publish: false, subscribe: true },
    stageBaseUrl: `${running.url}/stage`,
    ttlSeconds: 60,
    ...overrides,
  });
}

function newViewer(): NodeViewer {
  const viewer = new NodeViewer(eventsUrl);
  viewers.push(viewer);
  return viewer;
}

async function waitForStats(
  predicate: (stats: ReturnType<RunningStage['stage']['stats']>) => boolean,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!predicate(running.stage.stats())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** GET with the path sent exactly as given (fetch would normalise it first). */
function rawStatus(path: string): Promise<number | undefined> {
  const { hostname, port } = new URL(running.url);
  return new Promise((resolve, reject) => {
    request({ host: hostname, port, path, method: 'GET' }, (response) => {
      response.resume();
      resolve(response.statusCode);
    })
      .on('error', reject)
      .end();
  });
}

beforeAll(async () => {
  running = await startStageWithCameras({ secret, faultsEnabled: true });
  eventsUrl = `${running.url.replace('http', 'ws')}/stage/events`;
});

afterAll(async () => {
  for (const viewer of viewers) viewer.close();
  await running.close();
});

describe('local stage over real WebRTC', () => {
  it('delivers video of the joined aircraft whose pixels name the stream and a fresh capture time', async () => {
    const viewer = newViewer();
    const started = performance.now();
    const joined = await viewer.join(await tokenFor('N953AS'));
    expect(joined).toMatchObject({
      type: 'joined',
      stageId: 'N953AS',
      participants: [{ userId: 'N953AS', publishing: true, media: ['audio', 'video'] }],
    });
    await viewer.subscribe();
    await viewer.waitFor(() => viewer.frames.some((f) => f.strip !== null), 'a decodable frame');
    const firstFrameMs = performance.now() - started;
    const first = viewer.frames.find((f) => f.strip !== null);
    expect(first).toMatchObject({ width: 640, height: 360, strip: { streamIndex: 1 } });
    const age = (first?.receivedAtMs ?? 0) - (first?.strip?.captureTimeMs ?? 0);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(1000);

    await viewer.waitFor(() => viewer.frames.length >= 31, 'a second of video');
    const decoded = viewer.frames.filter((f) => f.strip !== null);
    expect(decoded.length).toBeGreaterThan(viewer.frames.length * 0.9);
    expect(new Set(decoded.map((f) => f.strip?.streamIndex))).toEqual(new Set([1]));
    console.log(`join → first decoded frame: ${firstFrameMs.toFixed(0)} ms (Node client)`);
    expect(viewer.trackKinds).toEqual(['video']);
    viewer.close();
  });

  it('sends the cabin audio only to a viewer that asks for it', async () => {
    const listener = newViewer();
    await listener.join(await tokenFor('N743AS'));
    await listener.subscribe(undefined, { audio: true, video: false });
    await listener.waitFor(() => listener.peerState === 'connected', 'a connection');
    expect(listener.trackKinds).toEqual(['audio']);
    expect(running.stage.stats().stages.N743AS).toMatchObject({
      audioListeners: 1,
      camera: { viewers: 0 },
    });
    listener.close();
    await waitForStats((stats) => stats.stages.N743AS?.audioListeners === 0, 'the audio to stop');
  });

  it('sends one aircraft to two viewers as the same frames; the first plays on while the second joins', async () => {
    const first = newViewer();
    await first.join(await tokenFor('N953AS'));
    await first.subscribe();
    await first.waitFor(() => first.frames.length >= 10, 'ten frames');
    const second = newViewer();
    await second.join(await tokenFor('N953AS'));
    const joinedAt = Date.now();
    await second.subscribe();
    await second.waitFor(() => second.frames.length >= 10, 'ten frames');
    expect(second.frames[0]?.receivedAtMs ?? Infinity).toBeLessThan(joinedAt + 2_000);

    // The first viewer's picture never stalled while the second joined (no gap over 250 ms).
    const during = first.frames.filter((frame) => frame.receivedAtMs >= joinedAt - 100);
    const gaps = during
      .slice(1)
      .map((frame, index) => frame.receivedAtMs - (during[index]?.receivedAtMs ?? 0));
    expect(Math.max(...gaps)).toBeLessThan(250);
    // Both decode the very same camera frames (one encoded stream, forwarded to each).
    const firstFrames = new Set(first.frames.map((frame) => frame.strip?.frame));
    const shared = second.frames.filter((frame) => firstFrames.has(frame.strip?.frame));
    expect(shared.length).toBeGreaterThanOrEqual(5);
    expect(running.stage.stats().stages.N953AS?.camera.viewers).toBe(2);
    first.close();
    second.close();
    await waitForStats((stats) => stats.stages.N953AS?.camera.viewers === 0, 'both to leave');
  });

  it('refuses malformed, forged, expired and other-capability tokens with IVS error codes', async () => {
    const refusal = async (token: string) => {
      const viewer = newViewer();
      const answer = await viewer.join(token);
      await viewer.waitFor(() => viewer.closed !== undefined, 'the socket to close');
      return { answer, closed: viewer.closed };
    };
    const malformed = await refusal('not-a-jwt');
    expect(malformed.answer).toMatchObject({
      type: 'error',
      code: 1,
      category: 'JOIN_ERROR',
      fatal: true,
    });
    expect(malformed.closed?.code).toBe(4001);

    const forged = await issueParticipantToken({
      secret: new TextEncoder().encode('another-secret-that-is-long-enough-too'),
      participantId: 'forger',
      stageId: 'N743AS',
      userId: 'u',
      attributes: {},
      capabilities: { publish: false, subscribe: true },
      stageBaseUrl: `${running.url}/stage`,
      ttlSeconds: 60,
    });
    expect((await refusal(forged)).answer).toMatchObject({ type: 'error', code: 1 });
    const expired = await tokenFor('N743AS', { now: new Date(Date.now() - 3_600_000) });
    expect((await refusal(expired)).answer).toMatchObject({ type: 'error', code: 2 });
    const publishOnly = await tokenFor('N743AS', {
      capabilities: { publish: true, subscribe: false },
    });
    expect((await refusal(publishOnly)).answer).toMatchObject({ type: 'error', code: 8 });
    const unknownStage = await tokenFor('N000XX');
    expect((await refusal(unknownStage)).answer).toMatchObject({ type: 'error', code: 8 });
  });

  it('releases the peer connection on the stage when the viewer closes its socket', async () => {
    const viewer = newViewer();
    const token = await tokenFor('N743AS');
    await viewer.join(token);
    await viewer.subscribe();
    await viewer.waitFor(() => viewer.frames.length > 0, 'a frame');
    expect(running.stage.stats().stages.N743AS?.peerConnections).toBe(1);
    viewer.close();
    await waitForStats((stats) => stats.peerConnections === 0 && stats.sockets === 0, 'release');
    expect(running.stage.stats().participants).toEqual([]);
  });

  it('ends a subscription whose DTLS handshake never ends, so the viewer can reconnect', async () => {
    // The viewer, a DTLS client, tells the stage it is the DTLS server: both sides send a
    // ClientHello and wait for the other's answer. ICE connects, DTLS never does.
    const viewer = new NodeViewer(eventsUrl, (sdp) =>
      sdp.replace(/^a=setup:active(?=\r?$)/gm, 'a=setup:passive'),
    );
    viewers.push(viewer);
    await viewer.join(await tokenFor('N953AS'));
    await viewer.subscribe();
    const offer = viewer.messages.find((message) => message.type === 'offer');
    const ended = await viewer.waitForMessage(
      (message) => message.type === 'subscriptionEnded',
      DTLS_HANDSHAKE_TIMEOUT_MS + 3_000,
    );
    expect(ended).toEqual({
      type: 'subscriptionEnded',
      subscriptionId: offer?.type === 'offer' ? offer.subscriptionId : undefined,
      reason: 'dtls-timeout',
    });
    expect(viewer.frames).toHaveLength(0);
    await waitForStats((stats) => (stats.stages.N953AS?.peerConnections ?? 0) === 0, 'release');
    viewer.close();
  });

  it('ends the older connection when the same token joins again (token reuse)', async () => {
    const token = await tokenFor('N954AS');
    const first = newViewer();
    await first.join(token);
    const second = newViewer();
    expect(await second.join(token)).toMatchObject({ type: 'joined' });
    await first.waitFor(() => first.closed !== undefined, 'the first socket to close');
    expect(first.messages).toContainEqual({ type: 'left', reason: 'token-reused' });
    second.close();
  });
});

describe('publishers: a real encoder over the synthetic camera', () => {
  /** A publisher that is an encoder to the stage: its token is not the camera process's. */
  function encoder(stageId: string, streamIndex: number): CameraPublisher {
    const publisher = new CameraPublisher({
      stageId,
      streamIndex,
      camera: { width: 320, height: 180, fps: 30, idleMs: 1000 },
      whipUrl: new URL(`/stage/whip/${stageId}`, running.url),
      issueToken: () =>
        issueParticipantToken({
          secret,
          participantId: `encoder-${++viewerCount}`,
          stageId,
          userId: `encoder-${stageId}`,
          attributes: {},
          capabilities: { publish: true, subscribe: false },
          stageBaseUrl: `${running.url}/stage`,
          ttlSeconds: 60,
        }),
    });
    // An encoder draws whether or not anyone watches: nobody tells it.
    publisher.setDemand({ video: true, audio: false });
    publisher.publish();
    return publisher;
  }

  it('shows the encoder instead of the camera while it publishes, then the camera again, as new participants', async () => {
    const viewer = newViewer();
    const joined = await viewer.join(await tokenFor('N954AS'));
    if (joined.type !== 'joined') throw new Error('not joined');
    const cameraParticipant = joined.participants[0];
    expect(cameraParticipant).toMatchObject({ attributes: { kind: 'camera' } });
    await viewer.subscribe();
    await viewer.waitFor(() => viewer.frames.some((f) => f.strip?.streamIndex === 2), 'the camera');

    // Stream index 0 in its pixels: not what N954AS's camera (index 2) draws.
    const real = encoder('N954AS', 0);
    try {
      const left = await viewer.waitForMessage((m) => m.type === 'participantLeft');
      const arrived = await viewer.waitForMessage((m) => m.type === 'participantJoined');
      if (left.type !== 'participantLeft' || arrived.type !== 'participantJoined')
        throw new Error();
      expect(left.participantId).toBe(cameraParticipant?.id);
      expect(arrived.participant).toMatchObject({
        userId: 'encoder-N954AS',
        attributes: { kind: 'encoder', tailNumber: 'N954AS' },
        media: ['audio', 'video'],
      });
      expect(running.stage.health().publishers.N954AS).toBe('encoder');
      // Nobody watches the camera now: the camera process is told to stop drawing it.
      await waitForStats((stats) => stats.stages.N954AS?.camera.state === 'idle', 'camera idle');
      const since = Date.now();
      await viewer.subscribe(arrived.participant);
      await viewer.waitFor(
        () => viewer.frames.some((f) => f.receivedAtMs >= since && f.strip?.streamIndex === 0),
        "the encoder's picture",
      );
    } finally {
      await real.close();
    }

    // The encoder ends its session (DELETE): the camera is shown again, as a new participant.
    const back = await viewer.waitForMessage(
      (m) => m.type === 'participantJoined' && m.participant.attributes.kind === 'camera',
    );
    if (back.type !== 'participantJoined') throw new Error();
    expect(back.participant.id).not.toBe(cameraParticipant?.id);
    const since = Date.now();
    await viewer.subscribe(back.participant);
    await viewer.waitFor(
      () => viewer.frames.some((f) => f.receivedAtMs >= since && f.strip?.streamIndex === 2),
      "the camera's picture again",
    );
    expect(viewer.closed).toBeUndefined();
    viewer.close();
  });

  it('waits for its camera, ends the camera session the moment the link closes, and admits only a signed link', async () => {
    const stage = await startLocalStage({
      host: '127.0.0.1',
      port: 0,
      secret,
      faultsEnabled: false,
      syntheticCameras: ['N743AS'],
    });
    const linkUrl = `${stage.url.replace('http', 'ws')}${CAMERA_LINK_PATH}`;
    const openLink = (token: string) =>
      new Promise<WebSocket>((resolve, reject) => {
        const socket = new WebSocket(linkUrl, { headers: { authorization: `Bearer ${token}` } });
        socket.once('open', () => resolve(socket));
        socket.once('unexpected-response', (_request, response) =>
          reject(new Error(`link refused: ${response.statusCode}`)),
        );
      });
    const camera = new CameraPublisher({
      stageId: 'N743AS',
      streamIndex: 0,
      camera: { width: 320, height: 180, fps: 15, idleMs: 0 },
      whipUrl: new URL('/stage/whip/N743AS', stage.url),
      issueToken: () =>
        issueParticipantToken({
          secret,
          participantId: 'camera-session',
          stageId: 'N743AS',
          userId: SYNTHETIC_CAMERA_USER_ID,
          attributes: {},
          capabilities: { publish: true, subscribe: false },
          stageBaseUrl: `${stage.url}/stage`,
          ttlSeconds: 60,
        }),
    });
    try {
      expect(stage.stage.health()).toEqual({
        ready: false,
        reason: 'no camera publishes N743AS yet',
        publishers: { N743AS: 'none', N953AS: 'none', N954AS: 'none' },
      });
      const forged = await issueCameraLinkToken(new TextEncoder().encode('x'.repeat(40)));
      await expect(openLink(forged)).rejects.toThrow('link refused: 401');
      // Participant tokens are signed with the same secret, but are not link tokens: neither a
      // viewer's nor even the camera's own publish token opens the link.
      for (const capabilities of [
        { publish: false, subscribe: true },
        { publish: true, subscribe: false },
      ]) {
        const participantToken = await issueParticipantToken({
          secret,
          participantId: 'not-the-camera-process',
          stageId: 'N743AS',
          userId: SYNTHETIC_CAMERA_USER_ID,
          attributes: {},
          capabilities,
          stageBaseUrl: `${stage.url}/stage`,
          ttlSeconds: 60,
        });
        await expect(openLink(participantToken)).rejects.toThrow('link refused: 401');
      }
      await expect(openLink('')).rejects.toThrow('link refused: 401');
      const link = await openLink(await issueCameraLinkToken(secret));
      camera.publish();
      const deadline = Date.now() + 10_000;
      while (!stage.stage.health().ready && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(stage.stage.health()).toMatchObject({ ready: true, publishers: { N743AS: 'camera' } });

      // The camera process dies: its link drops, and its session ends with it, not seconds later.
      link.terminate();
      const cutAt = Date.now();
      while (stage.stage.health().publishers.N743AS !== 'none' && Date.now() < cutAt + 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(stage.stage.health()).toMatchObject({ ready: false, publishers: { N743AS: 'none' } });
      expect(Date.now() - cutAt).toBeLessThan(500);
    } finally {
      await camera.close();
      await stage.close();
    }
  });
});

describe('fault injection', () => {
  async function fault(path: string, body: unknown = {}) {
    const response = await fetch(`${running.url}/_faults/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.ok).toBe(true);
    return (await response.json()) as unknown;
  }

  it('drops one viewer abruptly and frees its peer connection, leaving others connected', async () => {
    const dropped = newViewer();
    const kept = newViewer();
    await dropped.join(await tokenFor('N743AS', { participantId: 'drop-me' }));
    await kept.join(await tokenFor('N743AS', { participantId: 'keep-me' }));
    await dropped.subscribe();
    await kept.subscribe();
    await dropped.waitFor(() => dropped.frames.length > 0, 'a frame');
    await kept.waitFor(() => kept.frames.length > 0, 'a frame');

    expect(await fault('drop', { participantId: 'drop-me' })).toEqual({ dropped: 1 });
    await dropped.waitFor(() => dropped.closed !== undefined, 'the drop');
    expect(dropped.closed?.code).toBe(1006);
    await waitForStats((stats) => stats.peerConnections === 1, 'one peer connection left');
    expect(running.stage.stats().participants).toEqual([
      { participantId: 'keep-me', stageId: 'N743AS', peerConnections: 1 },
    ]);
    kept.close();
  });

  it('fails the next join with the requested code, then admits again', async () => {
    await fault('fail-next-join', { stageId: 'N743AS', code: 6 });
    await fault('fail-next-join', { stageId: 'N743AS', message: 'Stage is closed for tests' });
    const refused = newViewer();
    expect(await refused.join(await tokenFor('N743AS'))).toMatchObject({
      type: 'error',
      code: 6,
      category: 'JOIN_ERROR',
      message: 'Stage at capacity',
    });
    const refusedAgain = newViewer();
    expect(await refusedAgain.join(await tokenFor('N743AS'))).toMatchObject({
      type: 'error',
      code: 4,
      message: 'Stage is closed for tests',
    });
    const admitted = newViewer();
    expect(await admitted.join(await tokenFor('N743AS'))).toMatchObject({ type: 'joined' });
    admitted.close();
  });

  it('raises a stage error with and without a message', async () => {
    const viewer = newViewer();
    await viewer.join(await tokenFor('N954AS', { participantId: 'erroring' }));
    await fault('stage-error', { participantId: 'erroring', message: 'Camera feed interrupted' });
    await fault('stage-error', { participantId: 'erroring' });
    await viewer.waitFor(
      () => viewer.messages.filter((m) => m.type === 'error').length === 2,
      'two errors',
    );
    const errors = viewer.messages.filter((m) => m.type === 'error');
    expect(errors.map((e) => (e.type === 'error' ? e.message : ''))).toEqual([
      'Camera feed interrupted',
      '',
    ]);
    expect(viewer.closed).toBeUndefined();
    viewer.close();
  });

  it('stops a camera (its publisher leaves) and restarts it as a new publisher', async () => {
    const viewer = newViewer();
    await viewer.join(await tokenFor('N953AS'));
    await viewer.subscribe();
    await viewer.waitFor(() => viewer.frames.length > 0, 'a frame');
    await fault('camera', { stageId: 'N953AS', action: 'stop' });
    const left = await viewer.waitForMessage((m) => m.type === 'participantLeft');
    await waitForStats((stats) => stats.stages.N953AS?.peerConnections === 0, 'no peers');
    expect(running.stage.stats().stages.N953AS?.camera.state).toBe('stopped');

    await fault('camera', { stageId: 'N953AS', action: 'start' });
    const joined = await viewer.waitForMessage((m) => m.type === 'participantJoined');
    if (joined.type !== 'participantJoined' || left.type !== 'participantLeft') throw new Error();
    expect(joined.participant.id).not.toBe(left.participantId);
    const framesBefore = viewer.frames.length;
    await viewer.subscribe(joined.participant);
    await viewer.waitFor(() => viewer.frames.length > framesBefore + 5, 'frames again');
    viewer.close();
  });

  it('restarts the stage: every connection is cut', async () => {
    const viewer = newViewer();
    await viewer.join(await tokenFor('N743AS'));
    expect(await fault('restart')).toEqual({ dropped: 1 });
    await viewer.waitFor(() => viewer.closed !== undefined, 'the cut');
    await waitForStats((stats) => stats.sockets === 0, 'no sockets');
  });

  it('answers only on loopback paths outside /stage/, and reports counts', async () => {
    const state = await fetch(`${running.url}/_faults/state`);
    expect(await state.json()).toMatchObject({ sockets: 0, peerConnections: 0 });
    const health = await fetch(`${running.url}/stage/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      status: 'ok',
      ready: true,
      publishers: { N743AS: 'camera', N953AS: 'camera', N954AS: 'camera' },
    });
    expect((await fetch(`${running.url}/stage/_faults/drop`, { method: 'POST' })).status).toBe(404);
    // A path the API would proxy (it starts with /stage/) must not resolve to a fault route.
    for (const sneaky of [
      '/stage/%2e%2e/_faults/state',
      '/stage/%2E%2E/_stats',
      '/stage//_stats',
    ]) {
      expect(await rawStatus(sneaky), sneaky).toBe(404);
    }
  });
});

describe('readiness (GET /stage/health)', () => {
  async function healthOf(stage: RunningStage) {
    const response = await fetch(`${stage.url}/stage/health`);
    return { status: response.status, body: (await response.json()) as unknown };
  }

  it('answers 503, not ready, naming the reason, when its token secret cannot verify a join', async () => {
    const unusable = await startLocalStage({
      host: '127.0.0.1',
      port: 0,
      secret: new Uint8Array(0),
      faultsEnabled: false,
    });
    try {
      expect(await healthOf(unusable)).toEqual({
        status: 503,
        body: {
          status: 'unavailable',
          ready: false,
          reason: expect.stringMatching(/^participant tokens cannot be verified: .+/),
          publishers: { N743AS: 'none', N953AS: 'none', N954AS: 'none' },
        },
      });
    } finally {
      await unusable.close();
    }
  });

  it('answers ready once started, and 503 "shutting down" as soon as it closes', async () => {
    const stage = await startLocalStage({
      host: '127.0.0.1',
      port: 0,
      secret,
      faultsEnabled: false,
    });
    try {
      expect(await healthOf(stage)).toMatchObject({ status: 200, body: { ready: true } });
      stage.stage.close();
      expect(await healthOf(stage)).toMatchObject({
        status: 503,
        body: { status: 'unavailable', ready: false, reason: 'shutting down' },
      });
    } finally {
      await stage.close();
    }
  });
});
