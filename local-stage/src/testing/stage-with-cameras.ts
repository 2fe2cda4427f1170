/**
 * The local stage with its synthetic cameras publishing, in this process, as `npm start` runs
 * them in two: for tests that need pictures. Resolves once the stage says it is ready (every
 * camera on air).
 */
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { startCameraPublishers, type RunningCameras } from '../cameras/start-cameras';
import { startLocalStage, type RunningStage } from '../server/start';

export interface StageWithCameras extends RunningStage {
  cameras: RunningCameras;
}

export async function startStageWithCameras(
  options: Omit<Parameters<typeof startLocalStage>[0], 'host' | 'port'> & {
    camera?: { width: number; height: number; fps: number; idleMs: number; simulcast?: boolean };
  },
): Promise<StageWithCameras> {
  const syntheticCameras = options.syntheticCameras ?? STREAM_IDS;
  const running = await startLocalStage({
    ...options,
    host: '127.0.0.1',
    port: 0,
    syntheticCameras,
  });
  const cameras = startCameraPublishers({
    stageUrl: running.url,
    secret: options.secret,
    stageIds: syntheticCameras,
    camera: options.camera ?? { width: 640, height: 360, fps: 30, idleMs: 1000 },
  });
  const deadline = Date.now() + 15_000;
  while (!running.stage.health().ready) {
    if (Date.now() > deadline) {
      await cameras.close();
      await running.close();
      throw new Error(`the cameras did not come on air: ${JSON.stringify(running.stage.health())}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    ...running,
    cameras,
    close: async () => {
      await cameras.close();
      await running.close();
    },
  };
}
