/**
 * The set-up the layer tests share: the local stage with one synthetic camera sending three
 * simulcast layers (640x360, 320x180 and 160x90, at 30, 20 and 15 fps), and Node viewers that
 * join and subscribe to it.
 */
import { NodeViewer } from './node-viewer';
import { testParticipantToken } from './participant-tokens';
import { startStageWithCameras, type StageWithCameras } from './stage-with-cameras';

export function startSimulcastStage(
  secret: Uint8Array,
  stageId: string,
): Promise<StageWithCameras> {
  return startStageWithCameras({
    secret,
    faultsEnabled: false,
    syntheticCameras: [stageId],
    camera: { width: 640, height: 360, fps: 30, idleMs: 1_000, simulcast: true },
  });
}

/** A Node viewer of `stageId`, joined and subscribed, added to `viewers` for the test's cleanup. */
export async function watchingViewer(
  running: StageWithCameras,
  options: { secret: Uint8Array; stageId: string; participantId: string; viewers: NodeViewer[] },
): Promise<NodeViewer> {
  const viewer = new NodeViewer(`${running.url.replace('http', 'ws')}/stage/events`);
  options.viewers.push(viewer);
  await viewer.join(
    await testParticipantToken({
      secret: options.secret,
      stageUrl: running.url,
      participantId: options.participantId,
      stageId: options.stageId,
    }),
  );
  await viewer.subscribe();
  return viewer;
}
