/**
 * Simulcast in, end to end in Node: the synthetic camera (libwebrtc through `@roamhq/wrtc`)
 * publishes three encodings over WHIP, the stage receives each as a layer (/_stats lists them with
 * their sizes, bitrates and frame rates), and a libwebrtc viewer plays the highest one, its
 * picture whole and its frames timed by the camera's clock.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { stageStatsSchema } from '../../../control';
import { NodeViewer } from '../../../testing/node-viewer';
import { startSimulcastStage, watchingViewer } from '../../../testing/simulcast-stage';
import type { StageWithCameras } from '../../../testing/stage-with-cameras';
import { waitUntil } from '../../../testing/wait-until';

const secret = new TextEncoder().encode('a-simulcast-camera-test-secret-of-enough-length');
const STAGE = 'N953AS';
let running: StageWithCameras;
const viewers: NodeViewer[] = [];

async function stats() {
  const response = await fetch(`${running.url}/_stats`);
  expect(response.ok).toBe(true);
  return stageStatsSchema.parse(await response.json());
}

const watching = (participantId: string): Promise<NodeViewer> =>
  watchingViewer(running, { secret, stageId: STAGE, participantId, viewers });

beforeAll(async () => {
  running = await startSimulcastStage(secret, STAGE);
}, 30_000);

afterEach(() => {
  for (const viewer of viewers.splice(0)) viewer.close();
});

afterAll(async () => {
  await running?.close();
});

describe('a simulcast camera', () => {
  it('is received as three layers, and its viewer plays the highest, whole', async () => {
    const viewer = await watching('simulcast-viewer');
    await viewer.waitFor(() => viewer.frames.length > 60, '60 frames', 20_000);
    // The highest layer: the camera's own size, its time strip readable in every frame shown.
    await viewer
      .waitFor(
        () =>
          viewer.frames.slice(-10).every((frame) => frame.width === 640 && frame.height === 360),
        'the 640x360 layer',
        10_000,
      )
      .catch(async (error: unknown) => {
        // Whether the camera was sending its top layer then (a loaded machine's encoder may stop
        // it), or the stage was not giving it to the viewer.
        const layers = (await stats()).stages[STAGE]?.publisher?.layers;
        const shown = viewer.frames.slice(-3).map((frame) => `${frame.width}x${frame.height}`);
        throw new Error(
          `${String(error)}; frames shown last: ${shown.join(', ')}; the camera's layers: ${JSON.stringify(layers)}`,
        );
      });
    expect(
      viewer.frames
        .slice(-10)
        .every((frame) => frame.strip?.streamIndex === STREAM_IDS.indexOf(STAGE)),
    ).toBe(true);

    await waitUntil(
      async () =>
        ((await stats()).stages[STAGE]?.publisher?.layers ?? []).every(
          (layer) => layer.bitrate > 0 && layer.width !== null,
        ),
      'three layers measured',
      10_000,
    );
    const publisher = (await stats()).stages[STAGE]?.publisher;
    const layers = publisher?.layers ?? [];
    console.log(`simulcast camera layers: ${JSON.stringify(layers)}`);
    expect(layers.map((layer) => [layer.rid, layer.width, layer.height])).toEqual([
      ['f', 640, 360],
      ['h', 320, 180],
      ['q', 160, 90],
    ]);
    // Loose bounds: a loaded 2-core machine encodes late, never at twice the rate asked.
    const [f, h, q] = layers;
    expect(f?.frameRate).toBeGreaterThan(15);
    expect(q?.frameRate).toBeGreaterThan(5);
    expect(q?.frameRate).toBeLessThan(20);
    expect(f?.bitrate).toBeGreaterThan(h?.bitrate ?? 0);
    expect(h?.bitrate).toBeGreaterThan(q?.bitrate ?? 0);
    expect(new Set(layers.map((layer) => layer.ssrc)).size).toBe(3);

    // The frames the stage sent on, counted at the stage (the bench's full-frame-rate check): at
    // least what the viewer has shown, at most what the camera sent in all its layers.
    const shownFrames = viewer.frames.length;
    const after = (await stats()).stages[STAGE]?.publisher;
    expect(after?.framesForwarded).toHaveLength(1);
    const [forwarded = 0] = after?.framesForwarded ?? [];
    expect(forwarded).toBeGreaterThanOrEqual(shownFrames);
    expect(forwarded).toBeLessThanOrEqual(
      (after?.layers ?? []).reduce((sum, layer) => sum + layer.frames, 0),
    );
    // Ours, on loopback: no transport-wide CC, whose arrival times a stage busy with 100 viewers
    // stamps late, which its GCC took for a queue and cut its top layer for (decision 0079).
    expect(after?.feedback).toEqual({ transportCc: 0, remb: 0 });
  }, 60_000);
});
