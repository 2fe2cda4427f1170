/**
 * The SDK's layer API (IVS's) against a real local stage with a simulcast camera, in Node: the
 * browser's WebSocket and RTCPeerConnection are stood in for by `ws` and `@roamhq/wrtc`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import wrtc from '@roamhq/wrtc';
import { RTCVideoSink, type NodeMediaStreamTrack } from '../cameras/wrtc';
import { testParticipantToken } from '../testing/participant-tokens';
import { startSimulcastStage } from '../testing/simulcast-stage';
import type { StageWithCameras } from '../testing/stage-with-cameras';
import { waitUntil } from '../testing/wait-until';
import {
  InitialLayerPreference,
  RemoteStageStreamEvents,
  StageEvents,
  StageStreamLayerSelectedReason,
  StageSubscribeStreamType,
} from './enums';
import type { RemoteStageStream, StageParticipantInfo, StageStreamLayer } from './participant';
import { Stage, type StageStrategy } from './stage';
import { installBrowserGlobals } from '../testing/browser-globals';

installBrowserGlobals({ WebSocket, RTCPeerConnection: wrtc.RTCPeerConnection });

const secret = new TextEncoder().encode('an-sdk-layers-test-secret-long-enough!!');
const STAGE = 'N953AS';
let running: StageWithCameras;
const stages: Stage[] = [];
const sinks: InstanceType<typeof RTCVideoSink>[] = [];

beforeAll(async () => {
  running = await startSimulcastStage(secret, STAGE);
}, 30_000);

afterEach(() => {
  for (const stage of stages.splice(0)) stage.leave();
  for (const sink of sinks.splice(0)) sink.stop();
});

afterAll(async () => {
  await running?.close();
});

/** A strategy whose preferred layer the test sets (a label, a layer, or null for the stage's). */
function layerStrategy() {
  const choice: { layer: StageStreamLayer | string | null } = { layer: null };
  const strategy: StageStrategy = {
    stageStreamsToPublish: () => [],
    shouldPublishParticipant: () => false,
    shouldSubscribeToParticipant: () => [StageSubscribeStreamType.VIDEO],
    subscribeConfiguration: () => ({
      simulcast: { initialLayerPreference: InitialLayerPreference.HIGHEST_QUALITY },
    }),
    preferredLayerForStream: (_participant: StageParticipantInfo, _stream: RemoteStageStream) =>
      choice.layer,
  };
  return { choice, strategy };
}

async function joinedViewer(participantId: string, strategy: StageStrategy) {
  const stage = new Stage(
    await testParticipantToken({ secret, stageUrl: running.url, participantId, stageId: STAGE }),
    strategy,
  );
  stages.push(stage);
  const streams: RemoteStageStream[] = [];
  const stageEvents: { event: string; args: unknown[] }[] = [];
  stage.on(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, (_info, added) => streams.push(...added));
  for (const event of [
    StageEvents.STAGE_STREAM_LAYERS_CHANGED,
    StageEvents.STAGE_STREAM_LAYER_SELECTED,
    StageEvents.STAGE_STREAM_ADAPTION_CHANGED,
  ]) {
    stage.on(event, (...args: unknown[]) => stageEvents.push({ event, args }));
  }
  await stage.join();
  await waitUntil(() => streams.length > 0, 'a video stream');
  const video = streams[0]!;
  const frames: { width: number; height: number }[] = [];
  const sink = new RTCVideoSink(video.mediaStreamTrack as unknown as NodeMediaStreamTrack);
  sinks.push(sink);
  sink.onframe = ({ frame }) => {
    frames.push({ width: frame.width, height: frame.height });
    if (frames.length > 300) frames.splice(0, 150);
  };
  const showing = (width: number, height: number) =>
    frames.length > 5 && frames.slice(-5).every((f) => f.width === width && f.height === height);
  return { stage, video, frames, showing, stageEvents };
}

describe('the local SDK’s simulcast layers', () => {
  it('lists the layers, follows preferredLayerForStream at refreshStrategy, and tells each selection', async () => {
    const { choice, strategy } = layerStrategy();
    const viewer = await joinedViewer('sdk-layers', strategy);
    const selections: [string | undefined, string][] = [];
    viewer.video.on(RemoteStageStreamEvents.LAYER_SELECTED, (layer, reason) =>
      selections.push([layer?.label, reason]),
    );
    await waitUntil(() => viewer.video.getLayers().length === 3, 'three layers', 15_000);
    expect(
      viewer.video.getLayers().map((layer) => [layer.label, layer.width, layer.height]),
    ).toEqual([
      ['f', 640, 360],
      ['h', 320, 180],
      ['q', 160, 90],
    ]);
    expect(Object.keys(viewer.video.getLayers()[0]!).sort()).toEqual(
      ['bitrateBps', 'framesPerSecond', 'height', 'label', 'selected', 'width'].sort(),
    );
    await waitUntil(() => viewer.video.getSelectedLayer()?.label === 'f', 'f selected', 15_000);
    expect(viewer.video.isAdapting).toBe(true);
    // The stage's estimate of this viewer (libwebrtc's REMB), told as the local SDK's own news.
    await waitUntil(
      () => (viewer.video.getVideoAdaptation().estimateBps ?? 0) > 0,
      "the stage's estimate",
      15_000,
    );
    expect(viewer.video.getVideoAdaptation().videoPaused).toBe(false);
    expect(viewer.video.getHighestQualityLayer()?.label).toBe('f');
    expect(viewer.video.getLowestQualityLayer()?.label).toBe('q');

    // The app prefers the lowest layer, handing back the layer object itself.
    choice.layer = viewer.video.getLowestQualityLayer() ?? null;
    viewer.stage.refreshStrategy();
    await waitUntil(() => viewer.showing(160, 90), '160x90 frames', 15_000);
    await waitUntil(() => viewer.video.getSelectedLayer()?.label === 'q', 'q selected');
    expect(viewer.video.isAdapting).toBe(false);
    expect(selections).toContainEqual(['q', StageStreamLayerSelectedReason.SELECTED]);
    const stageSelected = viewer.stageEvents.filter(
      (e) => e.event === StageEvents.STAGE_STREAM_LAYER_SELECTED,
    );
    expect(stageSelected.at(-1)?.args).toEqual([
      viewer.video.participantInfo,
      viewer.video,
      expect.objectContaining({ label: 'q', selected: true }),
      'selected',
    ]);
    expect(
      viewer.stageEvents.some(
        (e) => e.event === StageEvents.STAGE_STREAM_ADAPTION_CHANGED && e.args[2] === false,
      ),
    ).toBe(true);

    // By its label, then back to the stage's choice.
    choice.layer = 'h';
    viewer.stage.refreshStrategy();
    await waitUntil(() => viewer.showing(320, 180), '320x180 frames', 15_000);
    choice.layer = null;
    viewer.stage.refreshStrategy();
    await waitUntil(() => viewer.showing(640, 360), '640x360 frames again', 15_000);
    await waitUntil(() => viewer.video.isAdapting, 'adapting again');
    expect(viewer.video.getSelectedLayer()?.label).toBe('f');
  }, 60_000);

  it('asks the strategy at once: a viewer preferring the middle layer from the start gets 320x180', async () => {
    const { choice, strategy } = layerStrategy();
    choice.layer = 'h';
    const viewer = await joinedViewer('sdk-layers-middle', strategy);
    await waitUntil(() => viewer.showing(320, 180), '320x180 frames', 15_000);
    expect(viewer.video.isAdapting).toBe(false);
  }, 60_000);
});
