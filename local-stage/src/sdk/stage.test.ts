/**
 * The browser SDK's Stage against a real local stage, in Node: the browser's WebSocket and
 * RTCPeerConnection are stood in for by `ws` and `@roamhq/wrtc`.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import wrtc from '@roamhq/wrtc';
import type { RunningStage } from '../server/start';
import { testParticipantToken } from '../testing/participant-tokens';
import { startStageWithCameras } from '../testing/stage-with-cameras';
import { startTestStage } from '../testing/test-stage';
import { waitUntil } from '../testing/wait-until';
import { RTCVideoSink, type NodeMediaStreamTrack } from '../cameras/wrtc';
import { decodeTimeStripFromI420, type TimeStripPayload } from '../time-strip';
import {
  StageConnectionState,
  StageEvents,
  StageLeftReason,
  StageSubscribeStreamType,
  SubscribeType,
} from './enums';
import type { StageError } from './errors';
import type { RemoteStageStream } from './participant';
import { Stage, type LocalStageConfiguration, type StageStrategy } from './stage';
import { installBrowserGlobals } from '../testing/browser-globals';

/** Every signalling message of the SDK's sockets, in order: sent ('out') and received ('in'). */
const traffic: { way: 'in' | 'out'; message: { type: string } & Record<string, unknown> }[] = [];

/** The browser's WebSocket, recording what passes. */
class RecordingSocket extends WebSocket {
  constructor(url: string) {
    super(url);
    this.on('message', (data) => {
      traffic.push({ way: 'in', message: JSON.parse(data.toString()) as { type: string } });
    });
  }

  override send(data: string): void {
    traffic.push({ way: 'out', message: JSON.parse(data) as { type: string } });
    super.send(data);
  }
}

installBrowserGlobals({ WebSocket: RecordingSocket, RTCPeerConnection: wrtc.RTCPeerConnection });

const secret = new TextEncoder().encode('an-sdk-test-secret-that-is-long-enough!!');
let running: RunningStage;
let tokens = 0;
const stages: Stage[] = [];

function strategy(answer: SubscribeType | StageSubscribeStreamType[]): StageStrategy {
  return {
    stageStreamsToPublish: () => [],
    shouldPublishParticipant: () => false,
    shouldSubscribeToParticipant: () => answer,
  };
}

async function token(stageId: string, options: { ttlSeconds?: number; base?: string } = {}) {
  tokens += 1;
  return testParticipantToken({
    secret,
    stageUrl: running.url,
    participantId: `sdk-viewer-${tokens}`,
    stageId,
    attributes: { clientId: `client-${tokens}` },
    stageBaseUrl: options.base,
    ttlSeconds: options.ttlSeconds,
  });
}

/** A Stage with every event recorded. */
function recordedStage(
  participantToken: string,
  subscribe: StageStrategy,
  timeoutMs?: number,
  configuration: LocalStageConfiguration = {},
) {
  const stage = new Stage(participantToken, subscribe, {
    joinTimeoutMs: timeoutMs,
    ...configuration,
  });
  stages.push(stage);
  const events: { event: string; args: unknown[] }[] = [];
  const streams: RemoteStageStream[] = [];
  for (const event of Object.values(StageEvents)) {
    stage.on(event, (...args: unknown[]) => events.push({ event, args }));
  }
  stage.on(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, (_info, added) => streams.push(...added));
  const states = () =>
    events
      .filter((e) => e.event === StageEvents.STAGE_CONNECTION_STATE_CHANGED)
      .map((e) => e.args[0]);
  return { stage, events, streams, states };
}

/** Whether a remote participant (the camera) has been announced. */
function remoteJoined(events: { event: string; args: unknown[] }[]): boolean {
  return events.some(
    (e) =>
      e.event === StageEvents.STAGE_PARTICIPANT_JOINED &&
      typeof e.args[0] === 'object' &&
      e.args[0] !== null &&
      'isLocal' in e.args[0] &&
      e.args[0].isLocal === false,
  );
}

function firstStrip(track: MediaStreamTrack): Promise<TimeStripPayload> {
  return new Promise((resolve, reject) => {
    // The SDK is typed for the browser; in this test its tracks are wrtc's.
    const sink = new RTCVideoSink(track as unknown as NodeMediaStreamTrack);
    const timer = setTimeout(() => {
      sink.stop();
      reject(new Error('no decodable frame'));
    }, 10_000);
    sink.onframe = ({ frame }) => {
      const strip = decodeTimeStripFromI420(frame);
      if (!strip) return;
      clearTimeout(timer);
      sink.stop();
      resolve(strip);
    };
  });
}

beforeAll(async () => {
  running = await startStageWithCameras({ secret, faultsEnabled: true });
});

/** What a test started besides its stages (another stage process), closed after it. */
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const stage of stages.splice(0)) stage.leave();
  for (const close of closers.splice(0)) await close();
});

afterAll(async () => {
  await running.close();
});

describe('local SDK Stage', () => {
  it("throws '[JOIN_ERROR] Token is malformed' from the constructor for a token that is not a JWT", () => {
    expect(() => new Stage('not-a-jwt', strategy(SubscribeType.AUDIO_VIDEO))).toThrow(
      '[JOIN_ERROR] Token is malformed',
    );
    try {
      new Stage('a.b', strategy(SubscribeType.AUDIO_VIDEO));
    } catch (error) {
      expect(error).toMatchObject({ name: 'StageError', code: 1, category: 'JOIN_ERROR' });
    }
  });

  it('joins (connecting → connected) and adds a video stream whose pixels name the aircraft', async () => {
    const started = performance.now();
    const { stage, events, streams, states } = recordedStage(
      await token('N954AS'),
      strategy([StageSubscribeStreamType.VIDEO]),
    );
    await stage.join();
    expect(states()).toEqual([StageConnectionState.CONNECTING, StageConnectionState.CONNECTED]);
    await waitUntil(() => streams.length > 0, 'a stream');
    expect(streams).toHaveLength(1);
    expect(streams[0]).toMatchObject({ streamType: 'video' });
    expect(streams[0]?.id).toBe(streams[0]?.mediaStreamTrack.id);
    const joined = events.filter((e) => e.event === StageEvents.STAGE_PARTICIPANT_JOINED);
    expect(joined.map((e) => e.args[0])).toMatchObject([
      { isLocal: true, userId: 'user-1', attributes: { clientId: expect.any(String) } },
      { isLocal: false, userId: 'N954AS', isPublishing: true },
    ]);
    const strip = await firstStrip(streams[0]!.mediaStreamTrack);
    console.log(`SDK join() → first decoded frame: ${(performance.now() - started).toFixed(0)} ms`);
    expect(strip.streamIndex).toBe(2);
    // A picture of now, not an old one: a bound a loaded machine keeps (1.7 s was seen with the
    // other workspaces' tests beside these); the latency itself is held by e2e and the bench.
    expect(Date.now() - strip.captureTimeMs).toBeLessThan(3_000);
  });

  it('with subscribeOnJoin, gets the offer along with joined and never sends subscribe', async () => {
    traffic.length = 0;
    const video = [StageSubscribeStreamType.VIDEO];
    const { stage, events, streams } = recordedStage(
      await token('N954AS'),
      strategy(video),
      undefined,
      { subscribeOnJoin: video },
    );
    await stage.join();
    await waitUntil(() => streams.length > 0, 'a stream');
    expect(streams.map((stream) => stream.streamType)).toEqual(['video']);
    expect(await firstStrip(streams[0]!.mediaStreamTrack)).toMatchObject({ streamIndex: 2 });
    const types = traffic.map(({ way, message }) => `${way} ${message.type}`);
    expect(types.slice(0, 3)).toEqual(['out join', 'in joined', 'in offer']);
    expect(traffic[0]?.message).toMatchObject({ offers: { audio: false, video: true } });
    expect(types).not.toContain('out subscribe');
    expect(types).not.toContain('out unsubscribe');
    expect(events.map((e) => e.event)).not.toContain(StageEvents.ERROR);
  });

  it('with a subscribeOnJoin the strategy does not follow, refuses that offer and subscribes as the strategy says', async () => {
    traffic.length = 0;
    const { stage, events, streams } = recordedStage(
      await token('N743AS'),
      strategy(SubscribeType.AUDIO_VIDEO),
      undefined,
      { subscribeOnJoin: [StageSubscribeStreamType.VIDEO] },
    );
    await stage.join();
    await waitUntil(() => streams.length > 1, 'the audio and video streams');
    expect(streams.map((stream) => stream.streamType).sort()).toEqual(['audio', 'video']);
    const sent = traffic.filter(({ way }) => way === 'out').map(({ message }) => message.type);
    expect(sent).toContain('subscribe');
    expect(sent).toContain('unsubscribe');
    expect(events.map((e) => e.event)).not.toContain(StageEvents.ERROR);
  });

  it('subscribes to what the strategy asks: [VIDEO], AUDIO_ONLY, AUDIO_VIDEO or NONE', async () => {
    const kinds = async (answer: SubscribeType | StageSubscribeStreamType[]) => {
      const viewer = recordedStage(await token('N743AS'), strategy(answer));
      await viewer.stage.join();
      await waitUntil(
        () =>
          remoteJoined(viewer.events) &&
          (answer === SubscribeType.NONE || viewer.streams.length > 0),
        `streams for ${String(answer)}`,
      );
      const added = viewer.events.filter(
        (e) => e.event === StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED,
      );
      expect(added.length).toBeLessThanOrEqual(1); // one event with every stream of the offer
      return viewer.streams.map((stream) => stream.streamType).sort();
    };
    expect(await kinds([StageSubscribeStreamType.VIDEO])).toEqual(['video']);
    expect(await kinds(SubscribeType.AUDIO_ONLY)).toEqual(['audio']);
    expect(await kinds(SubscribeType.AUDIO_VIDEO)).toEqual(['audio', 'video']);
    expect(await kinds(SubscribeType.NONE)).toEqual([]);
  });

  it('rejects join with a StageError, an error event and state errored for an expired token', async () => {
    const expired = await testParticipantToken({
      secret,
      stageUrl: running.url,
      participantId: 'expired-viewer',
      stageId: 'N743AS',
      now: new Date(Date.now() - 3_600_000),
    });
    const { stage, events, states } = recordedStage(expired, strategy(SubscribeType.AUDIO_VIDEO));
    const error = await stage.join().catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'StageError',
      code: 2,
      category: 'JOIN_ERROR',
      message: '[JOIN_ERROR] Token expired and is no longer valid',
      details: 'Token is expired',
    });
    expect(states()).toEqual([StageConnectionState.CONNECTING, StageConnectionState.ERRORED]);
    expect(events.find((e) => e.event === StageEvents.ERROR)?.args[0]).toBe(error);
  });

  it("rejects a join the stage refuses with the stage's own message", async () => {
    await fetch(`${running.url}/_faults/fail-next-join`, {
      method: 'POST',
      body: JSON.stringify({ stageId: 'N954AS', code: 6, message: 'Stage is full' }),
    });
    const { stage } = recordedStage(await token('N954AS'), strategy(SubscribeType.NONE));
    await expect(stage.join()).rejects.toMatchObject({
      name: 'StageError',
      code: 6,
      category: 'JOIN_ERROR',
      message: '[JOIN_ERROR] Stage is full',
    });
  });

  it('reports a dropped connection as disconnected, without stageLeft, and the stage frees the peer', async () => {
    const { stage, events, streams, states } = recordedStage(
      await token('N953AS'),
      strategy(SubscribeType.AUDIO_VIDEO),
    );
    await stage.join();
    await waitUntil(() => streams.length > 0, 'a stream');
    const before = running.stage.stats().peerConnections;
    await fetch(`${running.url}/_faults/drop`, { method: 'POST', body: '{"stageId":"N953AS"}' });
    await waitUntil(() => states().includes(StageConnectionState.DISCONNECTED), 'disconnected');
    expect(events.some((e) => e.event === StageEvents.STAGE_LEFT)).toBe(false);
    await waitUntil(() => running.stage.stats().peerConnections < before, 'the peer to be freed');
  });

  it('reports a peer connection cut by the stage as disconnected', async () => {
    const { stage, streams, states } = recordedStage(
      await token('N953AS'),
      strategy(SubscribeType.AUDIO_VIDEO),
    );
    await stage.join();
    await waitUntil(() => streams.length > 0, 'a stream');
    await fetch(`${running.url}/_faults/drop`, {
      method: 'POST',
      body: '{"stageId":"N953AS","peersOnly":true}',
    });
    await waitUntil(() => states().includes(StageConnectionState.DISCONNECTED), 'disconnected');
  });

  it("leave() ends with stageLeft 'user-initiated' and the stage holds no peer for the viewer", async () => {
    const participantToken = await token('N743AS');
    const { stage, events, streams } = recordedStage(
      participantToken,
      strategy(SubscribeType.AUDIO_VIDEO),
    );
    await stage.join();
    await waitUntil(() => streams.length > 0, 'a stream');
    const participantId = `sdk-viewer-${tokens}`;
    expect(running.stage.stats().participants).toContainEqual({
      participantId,
      stageId: 'N743AS',
      peerConnections: 1,
    });
    events.length = 0;
    stage.leave();
    expect(events.map((e) => e.event)).toEqual([
      StageEvents.STAGE_PARTICIPANT_LEFT,
      StageEvents.STAGE_PARTICIPANT_STREAMS_REMOVED,
      StageEvents.STAGE_PARTICIPANT_LEFT,
      StageEvents.STAGE_CONNECTION_STATE_CHANGED,
      StageEvents.STAGE_LEFT,
    ]);
    expect(events.at(-1)?.args).toEqual([StageLeftReason.USER_INITIATED]);
    await waitUntil(
      () => !running.stage.stats().participants.some((p) => p.participantId === participantId),
      'the stage to release the viewer',
    );
  });

  it('passes on a stage error with its message, and with an empty message when it has none', async () => {
    const { stage, events } = recordedStage(await token('N954AS'), strategy(SubscribeType.NONE));
    await stage.join();
    const participantId = `sdk-viewer-${tokens}`;
    for (const body of [{ participantId, message: 'Camera overheated' }, { participantId }]) {
      await fetch(`${running.url}/_faults/stage-error`, {
        method: 'POST',
        body: JSON.stringify(body),
      });
    }
    await waitUntil(
      () => events.filter((e) => e.event === StageEvents.ERROR).length === 2,
      'errors',
    );
    const messages = events
      .filter((e) => e.event === StageEvents.ERROR)
      .map((e) => (e.args[0] as StageError).message);
    expect(messages).toEqual(['[SUBSCRIBE_ERROR] Camera overheated', '']);
  });

  it('keeps trying while the stage is unreachable, then joins when it is back', async () => {
    // A port that accepts TCP connections and cuts them at once, as a stage mid-restart would.
    const attempts: number[] = [];
    const refusing = createServer((socket) => {
      attempts.push(Date.now());
      socket.destroy();
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const port = (refusing.address() as AddressInfo).port;
    const { stage, states } = recordedStage(
      await token('N743AS', { base: `http://127.0.0.1:${port}/stage` }),
      strategy(SubscribeType.NONE),
    );
    const joining = stage.join();
    await waitUntil(() => attempts.length >= 2, 'two refused attempts');
    expect(states()).toEqual([StageConnectionState.CONNECTING]);
    await new Promise<void>((resolve) => refusing.close(() => resolve()));
    const back = await startTestStage({ secret, port });
    closers.push(() => back.close());
    await joining;
    expect(states()).toEqual([StageConnectionState.CONNECTING, StageConnectionState.CONNECTED]);
    stage.leave();
  });

  it("rejects with '[JOIN_ERROR] Operation timed out' when the stage never answers", async () => {
    const spare = await startTestStage({ secret });
    const base = `${spare.url}/stage`;
    await spare.close();
    const { stage } = recordedStage(
      await token('N743AS', { base }),
      strategy(SubscribeType.NONE),
      600,
    );
    await expect(stage.join()).rejects.toMatchObject({
      code: 3,
      message: '[JOIN_ERROR] Operation timed out',
    });
  });
});
