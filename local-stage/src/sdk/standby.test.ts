/**
 * A join on standby (decision 0112), the SDK's Stage in Node against a real stage and camera:
 * connected, with none of the publisher's media sent and the app told nothing, until the
 * strategy asks for the video; then a live picture with no new subscription made. And the seat
 * such a join holds yields to a join of its account that shows a stream.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import wrtc from '@roamhq/wrtc';
import { testParticipantToken } from '../testing/participant-tokens';
import { startStageWithCameras, type StageWithCameras } from '../testing/stage-with-cameras';
import { waitUntil } from '../testing/wait-until';
import { RTCVideoSink, type NodeMediaStreamTrack } from '../cameras/wrtc';
import { decodeTimeStripFromI420 } from '../time-strip';
import { StageEvents, StageLeftReason, StageSubscribeStreamType, SubscribeType } from './enums';
import type { RemoteStageStream } from './participant';
import { Stage } from './stage';
import { installBrowserGlobals } from '../testing/browser-globals';

const secret = new TextEncoder().encode('a-standby-test-secret-that-is-long-enough');
const STAGE = 'N953AS';

/** The type of every message each socket of the test sent the stage, in order. */
const sent: string[][] = [];

class RecordingSocket extends WebSocket {
  private readonly types: string[] = [];

  constructor(url: string) {
    super(url);
    sent.push(this.types);
  }

  override send(data: string): void {
    this.types.push((JSON.parse(data) as { type: string }).type);
    super.send(data);
  }
}

installBrowserGlobals({ WebSocket: RecordingSocket, RTCPeerConnection: wrtc.RTCPeerConnection });

let running: StageWithCameras;
const stages: Stage[] = [];

beforeAll(async () => {
  running = await startStageWithCameras({
    secret,
    faultsEnabled: false,
    syntheticCameras: [STAGE],
    // Two seats an account: a standby join and a viewer's fill it (the yield test).
    limits: { sessionsPerUser: 2 },
    // The camera stops drawing 300 ms after its last viewer: a standby join keeps it drawing.
    camera: { width: 320, height: 180, fps: 15, idleMs: 300 },
  });
});

afterEach(async () => {
  for (const stage of stages.splice(0)) stage.leave();
  sent.length = 0;
  await waitUntil(() => stageStats().participants === 0, 'every session gone');
});

afterAll(async () => {
  await running.close();
});

const stageStats = () => running.stage.stats().stages[STAGE]!;

/** The stage's Prometheus gauge of open sessions on the aircraft, by role. */
async function sessionsByRole(): Promise<{ viewer: number; standby: number }> {
  const text = await running.stage.metrics.text();
  const value = (role: string) =>
    Number(
      new RegExp(`tailcam_stage_sessions\\{aircraft="${STAGE}",role="${role}"\\} (\\d+)`).exec(
        text,
      )?.[1],
    );
  return { viewer: value('viewer'), standby: value('standby') };
}

/**
 * A viewer's Stage whose strategy asks for the video once `shown.value` is true (from the start
 * unless `standby`, or `shownAtStart`).
 */
async function viewer(userId: string, standby: boolean, shownAtStart = !standby) {
  const token = await testParticipantToken({
    secret,
    stageUrl: running.url,
    stageId: STAGE,
    userId,
  });
  const shown = { value: shownAtStart };
  const stage = new Stage(
    token,
    {
      stageStreamsToPublish: () => [],
      shouldPublishParticipant: () => false,
      shouldSubscribeToParticipant: () =>
        shown.value ? [StageSubscribeStreamType.VIDEO] : SubscribeType.NONE,
    },
    { subscribeOnJoin: [StageSubscribeStreamType.VIDEO], standby },
  );
  stages.push(stage);
  const events: string[] = [];
  const videos: RemoteStageStream[] = [];
  stage.on(StageEvents.STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED, (_participant, state) =>
    events.push(`subscribe ${state}`),
  );
  stage.on(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, (_participant, streams) => {
    events.push('streams added');
    videos.push(...streams.filter((stream) => stream.streamType === 'video'));
  });
  stage.on(StageEvents.ERROR, (error) => events.push(`error ${error.message}`));
  stage.on(StageEvents.STAGE_LEFT, (reason) => events.push(`left ${reason}`));
  return { stage, shown, events, videos };
}

/** A viewer (as `viewer`) that has joined: the seats are taken in the order of these calls. */
async function joinedViewer(userId: string, standby: boolean) {
  const joined = await viewer(userId, standby);
  await joined.stage.join();
  return joined;
}

/** The first frame of `stream` that names the aircraft (its time strip), or an error. */
function liveFrame(stream: RemoteStageStream, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const sink = new RTCVideoSink(stream.mediaStreamTrack as unknown as NodeMediaStreamTrack);
    const timer = setTimeout(() => {
      sink.stop();
      reject(new Error('no frame of the aircraft'));
    }, timeoutMs);
    sink.onframe = ({ frame }) => {
      if (decodeTimeStripFromI420(frame)?.streamIndex !== 1) return;
      clearTimeout(timer);
      sink.stop();
      resolve();
    };
  });
}

describe('a join on standby', { timeout: 30_000 }, () => {
  it('connects with no media and tells the app nothing, then plays when asked, with no new subscription', async () => {
    const { stage, shown, events, videos } = await viewer('user-standby', true);
    await stage.join();
    // Connected on standby: one peer connection, its camera drawing, not a frame sent on, and
    // no person watching (nothing recorded for it).
    await waitUntil(() => stageStats().peerConnections === 1, 'the standby peer connection');
    await waitUntil(() => stageStats().camera.state === 'live', 'the camera kept drawing');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stageStats().publisher?.framesForwarded).toEqual([]);
    expect(running.stage.watchedByPerson()[STAGE]).toBe(false);
    expect(await sessionsByRole()).toEqual({ viewer: 0, standby: 1 });
    expect(events).toEqual([]);

    shown.value = true;
    stage.refreshStrategy();
    await waitUntil(() => videos.length === 1, 'the video stream, once asked for', 5_000);
    await liveFrame(videos[0]!, 5_000);
    expect(running.stage.watchedByPerson()[STAGE]).toBe(true);
    expect(await sessionsByRole()).toEqual({ viewer: 1, standby: 0 });
    expect(events).toContain('subscribe subscribed');
    expect(events.filter((event) => event.startsWith('error'))).toEqual([]);
    // The offer that came with `joined`, answered on standby, then resumed: no `subscribe`.
    expect(sent[0]).toContain('resume');
    expect(sent[0]).not.toContain('subscribe');
    expect(stageStats().peerConnections).toBe(1);
  });

  it('plays at once when the strategy asks for the video from the start', async () => {
    const { stage, events, videos } = await viewer('user-standby', true, true);
    await stage.join();
    await waitUntil(() => videos.length === 1, 'the video stream');
    await liveFrame(videos[0]!, 5_000);
    expect(events.filter((event) => event.startsWith('error'))).toEqual([]);
    // The standby offer sent with `joined` taken, and resumed as it came: its key frame asked
    // for before the answer, as any join's is.
    expect(sent[0]?.filter((type) => type !== 'candidate')).toEqual(['join', 'resume', 'answer']);
  });

  it('sends none of the video beside a viewer that plays', async () => {
    const { stage, videos } = await viewer('user-standby', true);
    const showing = await viewer('user-other', false);
    await Promise.all([stage.join(), showing.stage.join()]);
    await waitUntil(() => showing.videos.length === 1, 'the showing viewer’s video');
    await liveFrame(showing.videos[0]!, 5_000);
    await waitUntil(() => stageStats().peerConnections === 2, 'both peer connections');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(videos).toEqual([]);
    // One viewer's video in the stage's figures: the standby subscription's is not one.
    expect(stageStats().publisher?.framesForwarded).toHaveLength(1);
  });

  it('yields its seat to a join of its account that shows a stream, and only to one', async () => {
    const first = await joinedViewer('user-full', true);
    const second = await joinedViewer('user-full', true);
    // The account's two seats are taken by standby joins: a third on standby is refused.
    const third = await viewer('user-full', true);
    await expect(third.stage.join()).rejects.toThrow(/Too many streams/);
    expect(first.events).toEqual([]);

    // A join that shows the stream takes the oldest standby seat, and plays.
    const watching = await viewer('user-full', false);
    await watching.stage.join();
    await waitUntil(() => watching.videos.length === 1, 'the watching viewer’s video');
    await liveFrame(watching.videos[0]!, 5_000);
    await waitUntil(() => first.events.length > 0, 'the oldest standby join told');
    expect(first.events).toEqual([`left ${StageLeftReason.PARTICIPANT_DISCONNECTED}`]);
    expect(second.events).toEqual([]);
    expect(stageStats().participants).toBe(2);
  });

  it('takes no seat of another account: that account keeps its pages on standby', async () => {
    const other = await joinedViewer('user-a', true);
    await joinedViewer('user-b', false);
    await joinedViewer('user-b', false);
    const third = await viewer('user-b', false);
    await expect(third.stage.join()).rejects.toThrow(/Too many streams/);
    expect(other.events).toEqual([]);
  });

  it('is a viewer in the stage’s events once it shows a stream, not before', async () => {
    const viewerJoins = () =>
      running.stage
        .eventsAnswer(0)
        .events.filter(
          (event) => event.name === 'Participant Joined' && event.userId === 'user-events',
        ).length;
    const { stage, shown, videos } = await viewer('user-events', true);
    await stage.join();
    await waitUntil(() => stageStats().peerConnections === 1, 'the standby peer connection');
    expect(viewerJoins()).toBe(0);
    shown.value = true;
    stage.refreshStrategy();
    await waitUntil(() => videos.length === 1, 'the video stream, once asked for');
    await waitUntil(() => viewerJoins() === 1, 'its Participant Joined');
  });

  it('refuses a resume that names no subscription of the session, and changes nothing', async () => {
    const token = await testParticipantToken({
      secret,
      stageUrl: running.url,
      stageId: STAGE,
      userId: 'user-raw',
    });
    const socket = new WebSocket(`${running.url.replace('http', 'ws')}/stage/events`);
    const messages: { type: string; subscriptionId?: string; fatal?: boolean }[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(data.toString()) as never));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(
      JSON.stringify({ type: 'join', token, offers: { audio: false, video: true, standby: true } }),
    );
    await waitUntil(() => messages.some((message) => message.type === 'offer'), 'the offer');
    socket.send(JSON.stringify({ type: 'resume', subscriptionId: 'no-such-subscription' }));
    await waitUntil(() => messages.some((message) => message.type === 'error'), 'the refusal');
    expect(messages.find((message) => message.type === 'error')).toMatchObject({
      subscriptionId: 'no-such-subscription',
      fatal: false,
    });
    // Still joined, still on standby: no person watching, the socket open.
    expect(await sessionsByRole()).toEqual({ viewer: 0, standby: 1 });
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
  });
});
