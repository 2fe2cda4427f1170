/**
 * A viewer's own layer, end to end in Node: the simulcast camera publishes three layers, a
 * libwebrtc viewer is told them and the layer it gets, prefers the lowest and decodes 160x90
 * frames, then leaves the choice to the stage and is back on 640x360. A preference the stage
 * cannot follow is refused with a clear error, and nothing changes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StageMessage } from '../../../signalling';
import { stageStatsSchema } from '../../../control';
import { NodeViewer } from '../../../testing/node-viewer';
import { testParticipantToken } from '../../../testing/participant-tokens';
import { startSimulcastStage, watchingViewer } from '../../../testing/simulcast-stage';
import type { StageWithCameras } from '../../../testing/stage-with-cameras';

const secret = new TextEncoder().encode('a-layer-choice-test-secret-of-enough-length');
const STAGE = 'N743AS';
let running: StageWithCameras;
const viewers: NodeViewer[] = [];

beforeAll(async () => {
  running = await startSimulcastStage(secret, STAGE);
}, 30_000);

afterEach(() => {
  for (const viewer of viewers.splice(0)) viewer.close();
});

afterAll(async () => {
  await running?.close();
});

const watching = (participantId: string): Promise<NodeViewer> =>
  watchingViewer(running, { secret, stageId: STAGE, participantId, viewers });

async function publisherStats() {
  const response = await fetch(`${running.url}/_stats`);
  return stageStatsSchema.parse(await response.json()).stages[STAGE]?.publisher;
}

const subscriptionIdOf = (viewer: NodeViewer): string => {
  const offer = viewer.messages.find((message) => message.type === 'offer');
  if (offer?.type !== 'offer') throw new Error('no offer');
  return offer.subscriptionId;
};

const lastFramesAre = (viewer: NodeViewer, width: number, height: number) =>
  viewer.frames.length > 5 &&
  viewer.frames.slice(-5).every((frame) => frame.width === width && frame.height === height);

const lastSelected = (viewer: NodeViewer) =>
  viewer.messages.findLast(
    (message): message is Extract<StageMessage, { type: 'layerSelected' }> =>
      message.type === 'layerSelected',
  );

describe('a viewer choosing its layer', () => {
  it('is told the layers, prefers the lowest (160x90 frames), then back to the stage’s choice (640x360)', async () => {
    const viewer = await watching('layer-viewer');
    const subscriptionId = subscriptionIdOf(viewer);
    await viewer.waitFor(() => lastFramesAre(viewer, 640, 360), 'the top layer', 20_000);
    await viewer.waitFor(
      () =>
        viewer.messages.some((message) => message.type === 'layers' && message.layers.length === 3),
      'three layers told',
    );
    const told = viewer.messages.findLast((message) => message.type === 'layers');
    expect(
      told?.type === 'layers' && told.layers.map((layer) => [layer.rid, layer.height]),
    ).toEqual([
      ['f', 360],
      ['h', 180],
      ['q', 90],
    ]);
    expect(lastSelected(viewer)).toMatchObject({ rid: 'f', adapting: true, reason: 'selected' });

    viewer.send({ type: 'preferLayer', subscriptionId, rid: 'q' });
    await viewer.waitFor(() => lastFramesAre(viewer, 160, 90), '160x90 frames', 10_000);
    await viewer.waitFor(() => lastSelected(viewer)?.rid === 'q', 'q told as selected');
    expect(lastSelected(viewer)).toMatchObject({ adapting: false, reason: 'selected' });
    // /_stats says which layer the viewer gets, and counts its frames against that layer's own
    // (the bench's full rate for a viewer moved down): over 2 s, every 'q' frame that came.
    const before = await publisherStats();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const after = await publisherStats();
    const [was, is] = [before?.viewerVideo[0], after?.viewerVideo[0]];
    expect(is).toMatchObject({ layer: 'q', paused: false });
    const framesOfQ = (stats: typeof after) =>
      stats?.layers.find((layer) => layer.rid === 'q')?.frames ?? 0;
    const offered = (is?.framesOffered ?? 0) - (was?.framesOffered ?? 0);
    const forwarded = (is?.framesForwarded ?? 0) - (was?.framesForwarded ?? 0);
    expect(offered).toBeGreaterThan(5);
    expect(Math.abs(offered - (framesOfQ(after) - framesOfQ(before)))).toBeLessThanOrEqual(1);
    expect(forwarded).toBeGreaterThanOrEqual(offered - 1);

    viewer.send({ type: 'preferLayer', subscriptionId, rid: null });
    await viewer.waitFor(() => lastFramesAre(viewer, 640, 360), '640x360 again', 10_000);
    await viewer.waitFor(() => lastSelected(viewer)?.rid === 'f', 'f told as selected');
    expect(lastSelected(viewer)).toMatchObject({ adapting: true });
  }, 60_000);

  it('refuses a layer the publisher does not have, or a malformed preference, and goes on', async () => {
    const viewer = await watching('layer-refused');
    const subscriptionId = subscriptionIdOf(viewer);
    await viewer.waitFor(() => lastFramesAre(viewer, 640, 360), 'the top layer', 20_000);

    viewer.send({ type: 'preferLayer', subscriptionId, rid: 'x' });
    viewer.send({ type: 'preferLayer', subscriptionId, rid: 'not a rid!' });
    viewer.send({ type: 'preferLayer', subscriptionId: 'no-such-subscription', rid: 'q' });
    await viewer.waitFor(
      () => viewer.messages.filter((message) => message.type === 'error').length === 3,
      'three errors',
    );
    const errors = viewer.messages.filter((message) => message.type === 'error');
    expect(errors.map((error) => error.type === 'error' && error.message)).toEqual([
      "No layer 'x' in this video (its layers: q, h, f)",
      'Invalid preferLayer (rid: a rid is 1 to 16 letters, digits, - or _)',
      'No such subscription',
    ]);
    expect(errors.every((error) => error.type === 'error' && !error.fatal)).toBe(true);
    // A refusal names the subscription it is about (a malformed message has none to name): the
    // SDK drops one about a subscription that has just ended (its publisher left as the
    // preference went), which is no error of the viewer's.
    expect(errors.map((error) => error.type === 'error' && error.subscriptionId)).toEqual([
      subscriptionId,
      undefined,
      'no-such-subscription',
    ]);
    expect(viewer.closed).toBeUndefined();
    const framesBefore = viewer.frames.length;
    await viewer.waitFor(() => viewer.frames.length > framesBefore + 10, 'frames go on');
    // Still the stage's choice (the highest arriving: on a loaded machine the camera's encoder
    // may drop its top layer a while, which is not this test's business).
    expect(lastSelected(viewer)).toMatchObject({ adapting: true, reason: 'selected' });
  }, 60_000);

  it('starts on the lowest layer when the subscription asks to', async () => {
    const viewer = new NodeViewer(`${running.url.replace('http', 'ws')}/stage/events`);
    viewers.push(viewer);
    const joined = await viewer.join(
      await testParticipantToken({
        secret,
        stageUrl: running.url,
        participantId: 'layer-lowest-first',
        stageId: STAGE,
      }),
    );
    const publisher = joined.type === 'joined' ? joined.participants[0] : undefined;
    viewer.send({
      type: 'subscribe',
      requestId: 'r-lowest',
      participantId: publisher?.id,
      media: { audio: false, video: true },
      initialLayer: 'lowest_quality',
    });
    await viewer.waitFor(() => viewer.frames.length > 0, 'a first frame', 20_000);
    expect(viewer.frames[0]).toMatchObject({ width: 160, height: 90 });
  }, 60_000);
});
