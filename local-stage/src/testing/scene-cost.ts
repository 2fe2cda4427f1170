/**
 * What drawing one synthetic camera frame costs the camera process, for `npm run bench --
 * --only=camera` (docs/decisions/0025-camera-rendering.md): the cameras' own `SceneRenderer`
 * drawing an aircraft's frames into I420, as the camera does 30 times a second while watched.
 */
import { SceneRenderer } from '../cameras/scene';

/** ms a frame over `frames` frames of `streamId` at width × height, after a warm-up. */
export function sceneMsPerFrame(
  streamId: string,
  width: number,
  height: number,
  frames: number,
): number {
  const scene = new SceneRenderer({ streamId, streamIndex: 0, width, height });
  const out = new Uint8Array(width * height * 1.5);
  const start = Date.UTC(2026, 10, 30, 12, 0, 0);
  const frameAt = (frame: number) =>
    scene.render(frame, start + Math.round(frame * (1000 / 30)), out);
  for (let frame = 0; frame < 100; frame += 1) frameAt(frame);
  const began = performance.now();
  for (let frame = 100; frame < 100 + frames; frame += 1) frameAt(frame);
  return (performance.now() - began) / frames;
}
