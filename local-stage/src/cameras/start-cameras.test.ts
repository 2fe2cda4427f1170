/**
 * The camera process's publishers against the real stage (its WHIP endpoint and camera link, in
 * this process on port 0), watched by a Node viewer that reads each frame's time strip.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_IDS, type StreamId } from '@tailcam/protocol/streams';
import { startLocalStage, type RunningStage } from '../server/start';
import { NodeViewer } from '../testing/node-viewer';
import { testParticipantToken } from '../testing/participant-tokens';
import { waitUntil } from '../testing/wait-until';
import { startCameraPublishers, type RunningCameras } from './start-cameras';

const secret = new TextEncoder().encode('a-camera-process-test-secret-of-enough-length');
const camera = { width: 320, height: 180, fps: 30, idleMs: 1_000 };
let stage: RunningStage;
let cameras: RunningCameras;
const viewers: NodeViewer[] = [];
let viewerCount = 0;

async function viewerToken(stageId: string): Promise<string> {
  viewerCount += 1;
  return testParticipantToken({
    secret,
    stageUrl: stage.url,
    participantId: `viewer-${viewerCount}`,
    stageId,
    userId: `user-${viewerCount}`,
  });
}

async function watch(stageId: StreamId): Promise<NodeViewer> {
  const viewer = new NodeViewer(`${stage.url.replace('http', 'ws')}/stage/events`);
  viewers.push(viewer);
  await viewer.join(await viewerToken(stageId));
  await viewer.subscribe();
  await viewer.waitFor(
    () => viewer.frames.some((frame) => frame.strip?.streamIndex === STREAM_IDS.indexOf(stageId)),
    `a frame of ${stageId}`,
  );
  return viewer;
}

beforeAll(async () => {
  stage = await startLocalStage({
    host: '127.0.0.1',
    port: 0,
    secret,
    faultsEnabled: true,
    syntheticCameras: STREAM_IDS,
  });
  cameras = startCameraPublishers({ stageUrl: stage.url, secret, stageIds: STREAM_IDS, camera });
  // The stage counts a publisher on air when its DTLS is done, the publisher a moment later.
  await waitUntil(
    () =>
      stage.stage.health().ready &&
      Object.values(cameras.stats().cameras).every((stats) => stats.state === 'published'),
    'every camera published',
    15_000,
  );
});

afterEach(() => {
  for (const viewer of viewers.splice(0)) viewer.close();
});

afterAll(async () => {
  await cameras?.close();
  await stage?.close();
});

describe('synthetic cameras publishing to the stage over WHIP', () => {
  it('publish every aircraft, draw nothing while nobody watches, and show a viewer its own aircraft', async () => {
    expect(stage.stage.health()).toMatchObject({
      ready: true,
      publishers: { N743AS: 'camera', N953AS: 'camera', N954AS: 'camera' },
    });
    const idle = cameras.stats();
    expect(idle.link).toBe('open');
    for (const stageId of STREAM_IDS) {
      expect(idle.cameras[stageId]).toMatchObject({ state: 'published', camera: 'idle' });
    }

    const viewer = await watch('N953AS');
    const frame = viewer.frames.find((received) => received.strip !== null);
    expect(frame).toMatchObject({ width: 320, height: 180, strip: { streamIndex: 1 } });
    // A fresh picture: captured within the last second.
    const age = (frame?.receivedAtMs ?? 0) - (frame?.strip?.captureTimeMs ?? 0);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(1_000);
    const watched = cameras.stats().cameras;
    expect(watched.N953AS).toMatchObject({ camera: 'live', demand: { video: true } });
    expect(watched.N743AS).toMatchObject({ camera: 'idle', demand: { video: false } });

    viewer.close();
    // The camera idles again once the stage reports no viewer (after STAGE_CAMERA_IDLE_MS).
    await waitUntil(
      () => cameras.stats().cameras.N953AS?.camera === 'idle',
      'the camera idle',
      15_000,
    );
  });

  it('takes a camera off air and back when the stage says so', async () => {
    const faults = `${stage.url}/_faults/camera`;
    const post = (body: object) =>
      fetch(faults, { method: 'POST', body: JSON.stringify(body) }).then((r) => r.ok);
    expect(await post({ stageId: 'N954AS', action: 'stop' })).toBe(true);
    await waitUntil(() => cameras.stats().cameras.N954AS?.state === 'off-air', 'off air', 15_000);
    expect(stage.stage.health().publishers.N954AS).toBe('none');

    expect(await post({ stageId: 'N954AS', action: 'start' })).toBe(true);
    await waitUntil(
      () => stage.stage.health().publishers.N954AS === 'camera',
      'back on air',
      15_000,
    );
    await watch('N954AS');
  });

  it('publishes again, by itself, to a stage that restarted on the same port (its faults cleared)', async () => {
    const port = new URL(stage.url).port;
    await fetch(`${stage.url}/_faults/camera`, {
      method: 'POST',
      body: JSON.stringify({ stageId: 'N954AS', action: 'stop' }),
    });
    await waitUntil(() => cameras.stats().cameras.N954AS?.state === 'off-air', 'off air', 15_000);
    await stage.close();
    await waitUntil(
      () => cameras.stats().link === 'connecting',
      'the link to see the stage gone',
      15_000,
    );
    stage = await startLocalStage({
      host: '127.0.0.1',
      port: Number(port),
      secret,
      faultsEnabled: true,
      syntheticCameras: STREAM_IDS,
    });
    await waitUntil(() => stage.stage.health().ready, 'every camera published again', 15_000);
    expect(stage.stage.health().publishers).toEqual({
      N743AS: 'camera',
      N953AS: 'camera',
      N954AS: 'camera',
    });
    await watch('N743AS');
  });
});
