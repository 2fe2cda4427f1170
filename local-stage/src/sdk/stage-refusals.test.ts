/**
 * The local SDK's Stage and the stage's refusals (decisions 0020, 0076): a refusal about a
 * subscription the SDK has already ended (the strategy no longer wants it, its publisher left,
 * it was unsubscribed) is moot and reaches the app as nothing; a refusal about a live one is the
 * app's `error` event, and a refused subscription is `errored`. The public Stage, in Node, with
 * the stage's end of the socket played by the test (the browser's WebSocket a stand-in that
 * hands over what the test sends as the stage would) and a stand-in RTCPeerConnection that
 * answers any offer (no media flows here; the stage's side is tested in
 * server/sessions and join-meets-publisher-change.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ParticipantDescription, StageMessage } from '../signalling';
import { testParticipantToken } from '../testing/participant-tokens';
import {
  StageConnectionState,
  StageEvents,
  StageParticipantSubscribeState,
  StageSubscribeStreamType,
  SubscribeType,
} from './enums';
import type { StageError } from './errors';
import { Stage, type LocalStageConfiguration, type StageStrategy } from './stage';
import { installBrowserGlobals } from '../testing/browser-globals';

type Sent = { type: string } & Record<string, unknown>;

/** The browser's WebSocket: what the SDK sends is kept; the test plays the stage's end. */
class StageEnd {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static last: StageEnd | undefined;
  readyState = StageEnd.CONNECTING;
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  onerror: (() => void) | null = null;
  readonly sent: Sent[] = [];

  constructor(readonly url: string) {
    StageEnd.last = this;
  }

  send(data: string): void {
    this.sent.push(JSON.parse(data) as Sent);
  }

  close(): void {
    this.readyState = StageEnd.CLOSED;
  }

  open(): void {
    this.readyState = StageEnd.OPEN;
    this.onopen?.();
  }

  /** A message from the stage; resolves once the SDK has applied it (its queue is promises). */
  async receive(message: StageMessage): Promise<void> {
    this.onmessage?.({ data: JSON.stringify(message) });
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** A peer connection that answers any offer at once. */
class AnsweringPeer {
  onicecandidate = null;
  ontrack = null;
  onconnectionstatechange = null;
  connectionState = 'new';
  localDescription: { type: string; sdp: string } | null = null;
  setRemoteDescription(): Promise<void> {
    return Promise.resolve();
  }
  createAnswer(): Promise<{ type: string; sdp: string }> {
    return Promise.resolve({ type: 'answer', sdp: 'v=0\r\n' });
  }
  setLocalDescription(description: { type: string; sdp: string }): Promise<void> {
    this.localDescription = description;
    return Promise.resolve();
  }
  addIceCandidate(): Promise<void> {
    return Promise.resolve();
  }
  close(): void {
    this.connectionState = 'closed';
  }
}

installBrowserGlobals({ WebSocket: StageEnd, RTCPeerConnection: AnsweringPeer });

const secret = new TextEncoder().encode('an-sdk-refusals-test-secret-long-enough!');
const camera: ParticipantDescription = {
  id: 'camera-N743AS',
  userId: 'N743AS',
  attributes: {},
  publishing: true,
  media: ['audio', 'video'],
};
const VIDEO = [StageSubscribeStreamType.VIDEO];
const stages: Stage[] = [];

afterEach(() => {
  for (const stage of stages.splice(0)) stage.leave();
});

/** A strategy whose subscribe answer the test changes (then `refreshStrategy()`). */
function strategy(answer: { now: SubscribeType | StageSubscribeStreamType[] }): StageStrategy {
  return {
    stageStreamsToPublish: () => [],
    shouldPublishParticipant: () => false,
    shouldSubscribeToParticipant: () => answer.now,
  };
}

/** A Stage joined to the played stage, with the camera there, and its events recorded. */
async function joinedStage(
  answer: { now: SubscribeType | StageSubscribeStreamType[] },
  configuration: LocalStageConfiguration = {},
) {
  const token = await testParticipantToken({
    secret,
    stageUrl: 'http://127.0.0.1:9',
    stageId: 'N743AS',
  });
  const stage = new Stage(token, strategy(answer), configuration);
  stages.push(stage);
  const events: { event: string; args: unknown[] }[] = [];
  for (const event of Object.values(StageEvents)) {
    stage.on(event, (...args: unknown[]) => events.push({ event, args }));
  }
  const joining = stage.join();
  const socket = StageEnd.last as StageEnd;
  socket.open();
  expect(socket.sent[0]).toMatchObject({ type: 'join' });
  await socket.receive({
    type: 'joined',
    protocol: 1,
    participantId: 'viewer-1',
    stageId: 'N743AS',
    participants: [camera],
  });
  await joining;
  const errors = () =>
    events.filter((e) => e.event === StageEvents.ERROR).map((e) => e.args[0] as StageError);
  const subscribeStates = () =>
    events
      .filter((e) => e.event === StageEvents.STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED)
      .map((e) => e.args[1]);
  const states = () =>
    events
      .filter((e) => e.event === StageEvents.STAGE_CONNECTION_STATE_CHANGED)
      .map((e) => e.args[0]);
  return { stage, socket, errors, subscribeStates, states };
}

/** The stage's refusal of a subscribe request or of a subscription's layer preference. */
function refusal(about: { requestId: string } | { subscriptionId: string }, message: string) {
  return {
    type: 'error',
    code: 4,
    category: 'SUBSCRIBE_ERROR',
    message,
    fatal: false,
    ...about,
  } as const;
}

/** The last `subscribe` the SDK sent: its requestId. */
function lastSubscribe(socket: StageEnd): string {
  const subscribes = socket.sent.filter((message) => message.type === 'subscribe');
  return String(subscribes[subscribes.length - 1]?.requestId);
}

const { ATTEMPTING_SUBSCRIBE, NOT_SUBSCRIBED, ERRORED } = StageParticipantSubscribeState;

describe("the SDK and the stage's refusals", () => {
  it('raises no error for a refused subscribe the strategy no longer wanted, and errors a live one', async () => {
    const answer = { now: VIDEO as SubscribeType | StageSubscribeStreamType[] };
    const { stage, socket, errors, subscribeStates, states } = await joinedStage(answer);
    const first = lastSubscribe(socket);

    // The app stops wanting the camera before the stage has read the subscribe.
    answer.now = SubscribeType.NONE;
    stage.refreshStrategy();
    await socket.receive(refusal({ requestId: first }, 'No such publisher on this stage'));
    expect(errors()).toEqual([]);
    expect(subscribeStates()).toEqual([ATTEMPTING_SUBSCRIBE, NOT_SUBSCRIBED]);

    // Wanted again: the new request's refusal is the app's error, and the camera `errored`.
    answer.now = VIDEO;
    stage.refreshStrategy();
    const second = lastSubscribe(socket);
    expect(second).not.toBe(first);
    await socket.receive(refusal({ requestId: second }, 'No such publisher on this stage'));
    expect(errors()).toHaveLength(1);
    expect(errors()[0]).toMatchObject({
      name: 'StageError',
      code: 4,
      category: 'SUBSCRIBE_ERROR',
      message: '[SUBSCRIBE_ERROR] No such publisher on this stage',
    });
    expect(subscribeStates()).toEqual([
      ATTEMPTING_SUBSCRIBE,
      NOT_SUBSCRIBED,
      ATTEMPTING_SUBSCRIBE,
      ERRORED,
    ]);
    // Not fatal: the session goes on.
    expect(states()).toEqual([StageConnectionState.CONNECTING, StageConnectionState.CONNECTED]);
  });

  it("raises no error for the joined offer's refusal once its publisher left, and errors it while there", async () => {
    // With `subscribeOnJoin` the offer comes with `joined`: no subscribe is sent, the request is
    // `joined:{publisher}` (decision 0076).
    const gone = await joinedStage({ now: VIDEO }, { subscribeOnJoin: VIDEO });
    expect(gone.socket.sent.map((message) => message.type)).toEqual(['join']);
    expect(gone.socket.sent[0]).toMatchObject({ offers: { audio: false, video: true } });
    await gone.socket.receive({ type: 'participantLeft', participantId: camera.id });
    await gone.socket.receive(
      refusal({ requestId: `joined:${camera.id}` }, 'No such publisher on this stage'),
    );
    expect(gone.errors()).toEqual([]);
    expect(gone.states()).toEqual([
      StageConnectionState.CONNECTING,
      StageConnectionState.CONNECTED,
    ]);

    const there = await joinedStage({ now: VIDEO }, { subscribeOnJoin: VIDEO });
    await there.socket.receive(
      refusal({ requestId: `joined:${camera.id}` }, 'The publisher is not publishing'),
    );
    expect(there.errors().map((error) => error.message)).toEqual([
      '[SUBSCRIBE_ERROR] The publisher is not publishing',
    ]);
    expect(there.subscribeStates()).toEqual([ATTEMPTING_SUBSCRIBE, ERRORED]);
  });

  it('raises no error for a refused layer preference of a subscription it unsubscribed, and errors a live one', async () => {
    const answer = { now: VIDEO as SubscribeType | StageSubscribeStreamType[] };
    const { stage, socket, errors } = await joinedStage(answer);
    const offer = (requestId: string, subscriptionId: string) =>
      socket.receive({
        type: 'offer',
        requestId,
        subscriptionId,
        participantId: camera.id,
        sdp: 'v=0\r\n',
      });
    await offer(lastSubscribe(socket), 'subscription-1');
    expect(socket.sent.at(-1)).toMatchObject({ type: 'answer', subscriptionId: 'subscription-1' });

    // Unsubscribed as the refusal of its last preference was on its way.
    answer.now = SubscribeType.NONE;
    stage.refreshStrategy();
    expect(socket.sent.at(-1)).toEqual({ type: 'unsubscribe', subscriptionId: 'subscription-1' });
    await socket.receive(refusal({ subscriptionId: 'subscription-1' }, 'No such subscription'));
    expect(errors()).toEqual([]);

    // A live subscription's refused preference is the app's error.
    answer.now = VIDEO;
    stage.refreshStrategy();
    await offer(lastSubscribe(socket), 'subscription-2');
    await socket.receive(
      refusal({ subscriptionId: 'subscription-2' }, 'No such layer: the publisher sends f, h'),
    );
    expect(errors().map((error) => error.message)).toEqual([
      '[SUBSCRIBE_ERROR] No such layer: the publisher sends f, h',
    ]);
  });
});
