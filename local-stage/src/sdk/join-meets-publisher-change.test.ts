/**
 * A join that meets a publisher change still plays: the SDK's Stage, in Node against
 * a real stage and camera, with the aircraft's publisher replaced (the camera goes off air and
 * comes back as a new participant, as when an encoder takes over or leaves) at each step of the
 * join: when the joined message arrives, when the offer arrives, when the answer is sent, when
 * the subscription connects, and after the first frame. Each time the viewer must end up with a
 * live picture of the aircraft from the new participant.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import wrtc from '@roamhq/wrtc';
import { publishNoiseOn } from '../testing/noise-publisher';
import { testParticipantToken } from '../testing/participant-tokens';
import { startStageWithCameras, type StageWithCameras } from '../testing/stage-with-cameras';
import { waitUntil } from '../testing/wait-until';
import { RTCVideoSink, type NodeMediaStreamTrack } from '../cameras/wrtc';
import { decodeTimeStripFromI420, type TimeStripPayload } from '../time-strip';
import { StageEvents, StageParticipantSubscribeState, SubscribeType } from './enums';
import type { RemoteStageStream, StageParticipantInfo } from './participant';
import { Stage, type LocalStageConfiguration } from './stage';
import { installBrowserGlobals } from '../testing/browser-globals';

const secret = new TextEncoder().encode('a-publisher-change-test-secret-long-enough');
const STAGE = 'N954AS';
type Step = 'joined' | 'offer' | 'answer' | 'subscribed' | 'first frame';

/** The step at which the next socket's join meets the change (read by the socket below). */
let changeAt: { step: Step; change: () => void } | undefined;

/** The browser's WebSocket, with the change made as a step's message passes. */
class SteppedSocket extends WebSocket {
  constructor(url: string) {
    super(url);
    // Registered before the SDK's own listener: the change lands before it reads the message.
    this.on('message', (data) => {
      const type = (JSON.parse(data.toString()) as { type?: string }).type;
      if (type === changeAt?.step) takeChange();
    });
  }

  override send(data: string): void {
    super.send(data);
    if (changeAt?.step === 'answer' && (JSON.parse(data) as { type?: string }).type === 'answer') {
      takeChange();
    }
  }
}

function takeChange(): void {
  const taken = changeAt;
  changeAt = undefined;
  taken?.change();
}

installBrowserGlobals({ WebSocket: SteppedSocket, RTCPeerConnection: wrtc.RTCPeerConnection });

let running: StageWithCameras;
const stages: Stage[] = [];
let viewers = 0;

beforeAll(async () => {
  running = await startStageWithCameras({ secret, faultsEnabled: true, syntheticCameras: [STAGE] });
});

afterEach(() => {
  changeAt = undefined;
  for (const stage of stages.splice(0)) stage.leave();
});

afterAll(async () => {
  await running.close();
});

/** The participant the stage shows its viewers now. */
function shownParticipant(): string | undefined {
  return running.stage.stats().stages[STAGE]?.publisher?.participantId;
}

/** The camera leaves and comes back: a new participant, as any change of publisher makes. */
function replacePublisher(): void {
  running.stage.faults.stopCamera(STAGE);
  running.stage.faults.startCamera(STAGE);
}

/** Resolves with the capture time of the first frame of `stream` that names the aircraft. */
function liveFrame(stream: RemoteStageStream, timeoutMs: number): Promise<number> {
  return frameOf(stream, timeoutMs, (strip) => strip?.streamIndex === 2);
}

/** Resolves with the first frame of `stream` that `wanted` takes (its capture time, or 0). */
function frameOf(
  stream: RemoteStageStream,
  timeoutMs: number,
  wanted: (strip: TimeStripPayload | null) => boolean,
): Promise<number> {
  return new Promise((resolve, reject) => {
    // The SDK is typed for the browser; in this test its tracks are wrtc's.
    const sink = new RTCVideoSink(stream.mediaStreamTrack as unknown as NodeMediaStreamTrack);
    const timer = setTimeout(() => {
      sink.stop();
      reject(new Error('no frame of the kind awaited'));
    }, timeoutMs);
    sink.onframe = ({ frame }) => {
      const strip = decodeTimeStripFromI420(frame);
      if (!wanted(strip)) return;
      clearTimeout(timer);
      sink.stop();
      resolve(strip?.captureTimeMs ?? 0);
    };
  });
}

/** A WHIP encoder on air on the aircraft (viewers see it rather than the camera); its end. */
async function encoderOnAir(): Promise<() => void> {
  const encoder = await publishNoiseOn({
    secret,
    stageUrl: running.url,
    stageId: STAGE,
    width: 160,
    height: 90,
    fps: 15,
  });
  await waitUntil(() => shownParticipant()?.includes('encoder') === true, 'the encoder on air');
  return () => void encoder.close();
}

/**
 * Joins with the change made at `step` (by default the publisher replaced); the participant whose
 * picture the viewer ends up with, and how old that picture is.
 */
async function joinMeetingChange(
  step: Step,
  change: () => void = replacePublisher,
  configuration: LocalStageConfiguration = {},
): Promise<{ participantId: string; ageMs: number; errors: string[] }> {
  viewers += 1;
  const token = await testParticipantToken({
    secret,
    stageUrl: running.url,
    participantId: `change-viewer-${viewers}`,
    stageId: STAGE,
  });
  const stage = new Stage(
    token,
    {
      stageStreamsToPublish: () => [],
      shouldPublishParticipant: () => false,
      shouldSubscribeToParticipant: () => SubscribeType.AUDIO_VIDEO,
    },
    configuration,
  );
  stages.push(stage);
  const before = shownParticipant();
  // What the app would show as 'Stream Unavailable': the change is no error of the viewer's.
  const errors: string[] = [];
  stage.on(StageEvents.ERROR, (error) => errors.push(error.message));
  const videos: { participant: StageParticipantInfo; stream: RemoteStageStream }[] = [];
  stage.on(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, (participant, streams) => {
    for (const stream of streams) {
      if (stream.streamType === 'video') videos.push({ participant, stream });
    }
  });
  if (step === 'subscribed') {
    stage.on(StageEvents.STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED, (participant, state) => {
      // The first subscription only: the new participant's is the one that must play.
      if (state === StageParticipantSubscribeState.SUBSCRIBED && participant.id === before) {
        change();
      }
    });
  } else if (step !== 'first frame') {
    changeAt = { step, change };
  }
  await stage.join();
  if (step === 'first frame') {
    await waitUntil(() => videos.length > 0, 'the first video stream', 10_000);
    // The first picture, the camera's or the encoder's (which draws no time strip).
    await frameOf(videos[0]!.stream, 10_000, () => true);
    change();
  }
  // The viewer ends up watching the participant that replaced the one it joined to.
  await waitUntil(
    () => videos.some(({ participant }) => participant.id !== before),
    `a video stream from the new participant (the change at ${step})`,
    15_000,
  );
  const { participant, stream } = videos.at(-1)!;
  const capturedAt = await liveFrame(stream, 10_000);
  return { participantId: participant.id, ageMs: Date.now() - capturedAt, errors };
}

const STEPS: Step[] = ['joined', 'offer', 'answer', 'subscribed', 'first frame'];

describe('a join that meets a publisher change', { timeout: 60_000 }, () => {
  it.each(STEPS)('plays the new publisher when the change comes at the %s', async (step) => {
    const { participantId, ageMs, errors } = await joinMeetingChange(step);
    expect(participantId).toBe(shownParticipant());
    expect(errors).toEqual([]);
    // A picture of now, not one held from before the change.
    expect(ageMs).toBeLessThan(3_000);
  });

  // The player's join: the stage sends the offer along with `joined` (decision 0076).
  it.each(['joined', 'offer', 'answer'] as const)(
    'plays the new publisher when the change comes at the %s of a join offered with joined',
    async (step) => {
      const { participantId, ageMs, errors } = await joinMeetingChange(step, replacePublisher, {
        subscribeOnJoin: SubscribeType.AUDIO_VIDEO,
      });
      expect(participantId).toBe(shownParticipant());
      expect(errors).toEqual([]);
      expect(ageMs).toBeLessThan(3_000);
    },
  );

  it.each(STEPS)('plays the camera again when the encoder leaves at the %s', async (step) => {
    const leave = await encoderOnAir();
    const { participantId, ageMs, errors } = await joinMeetingChange(step, leave);
    expect(participantId).toBe(shownParticipant());
    expect(errors).toEqual([]);
    expect(participantId).toContain('camera');
    expect(ageMs).toBeLessThan(3_000);
  });
});
