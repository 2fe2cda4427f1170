/**
 * What the recorder keeps of a simulcast camera (640x360, 320x180 and 160x90): the top layer,
 * whatever layer the person watching gets and whatever the recorder's own link would be given as
 * a viewer: here a link losing 10 % of what the stage sends, on which a viewer's layer choice
 * steps down. Read back by mediabunny's demuxer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NodeViewer } from '../testing/node-viewer';
import { readSegment } from '../testing/read-segment';
import { testParticipantToken } from '../testing/participant-tokens';
import type { StageWithCameras } from '../testing/stage-with-cameras';
import { startRecordingStage, type RecordingStage } from '../testing/test-recorder';
import { waitUntil } from '../testing/wait-until';

const secret = new TextEncoder().encode('a-recorder-top-layer-test-secret-of-length');
const STAGE = 'N743AS';
let running: StageWithCameras;
let setup: RecordingStage | undefined;
const segments: string[] = [];

beforeAll(async () => {
  setup = await startRecordingStage(
    {
      faultsEnabled: true,
      syntheticCameras: [STAGE],
      camera: { width: 640, height: 360, fps: 30, idleMs: 0, simulcast: true },
    },
    {
      secret,
      prefix: 'tailcam-recorder-top-layer-',
      onSegment: (_stageId, path) => segments.push(path),
    },
  );
  ({ running } = setup);
}, 30_000);

afterAll(() => setup?.close());

it('records the top layer (640x360) while the person watching prefers the lowest', async () => {
  const viewer = new NodeViewer(`${running.url.replace('http', 'ws')}/stage/events`);
  try {
    await viewer.join(
      await testParticipantToken({ secret, stageUrl: running.url, stageId: STAGE }),
    );
    await viewer.subscribe();
    await waitUntil(() => viewer.frames.length > 0, 'the viewer playing', 15_000);
    // Every subscription of the stage, the recorder's too, on a lossy link.
    running.stage.faults.setOutgoingLoss({ stageId: STAGE, percent: 10 });
    const offer = viewer.messages.find((message) => message.type === 'offer');
    if (offer?.type !== 'offer') throw new Error('no offer');
    viewer.send({ type: 'preferLayer', subscriptionId: offer.subscriptionId, rid: 'q' });
    await waitUntil(() => segments.length >= 5, 'five segments', 30_000, 100);
  } finally {
    viewer.close();
  }
  // The first segments may open before the camera's top layer has arrived, or before the loss.
  for (const path of segments.slice(2, 5)) {
    const read = await readSegment(path);
    expect({ width: read.width, height: read.height }).toEqual({ width: 640, height: 360 });
  }
}, 45_000);
