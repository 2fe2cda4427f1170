/**
 * A fake of the stage SDK global for unit tests: the same enum values and event names as the
 * Amazon IVS Web Broadcast SDK (checked against the real package's types below), with stages
 * that tests drive by hand. Not a model of the network: the local stage and e2e tests do that.
 */
import type * as IvsSdk from 'amazon-ivs-web-broadcast';
import type { StageSdk, StageStrategy } from '@/features/player/lib/stage-sdk';

type Listener = (...args: never[]) => void;

export const StageEvents = {
  STAGE_CONNECTION_STATE_CHANGED: 'stageConnectionStateChanged',
  STAGE_PARTICIPANT_JOINED: 'stageParticipantJoined',
  STAGE_PARTICIPANT_LEFT: 'stageParticipantLeft',
  STAGE_PARTICIPANT_STREAMS_ADDED: 'stageParticipantStreamsAdded',
  STAGE_PARTICIPANT_STREAMS_REMOVED: 'stageParticipantStreamsRemoved',
  ERROR: 'error',
  STAGE_LEFT: 'stageLeft',
  STAGE_STREAM_LAYERS_CHANGED: 'stageStreamLayersChanged',
  STAGE_STREAM_LAYER_SELECTED: 'stageStreamLayerSelected',
  STAGE_STREAM_SEI_MESSAGE_RECEIVED: 'stageStreamSeiMessageReceived',
} as const;

export const StageConnectionState = {
  DISCONNECTED: 'disconnected',
  CONNECTING: 'connecting',
  CONNECTED: 'connected',
  ERRORED: 'errored',
} as const;

export const SubscribeType = {
  NONE: 'none',
  AUDIO_ONLY: 'audio_only',
  AUDIO_VIDEO: 'audio_video',
} as const;

export const StageSubscribeStreamType = {
  AUDIO: 'audio',
  VIDEO: 'video',
  SUBTITLES: 'subtitles',
} as const;

export const StreamType = { AUDIO: 'audio', VIDEO: 'video', SUBTITLE: 'subtitle' } as const;

// The fake's values are the real SDK's: a drift in either fails the type-check.
type RealValues<E> = `${E & string}`;
const _sameEvents: Record<keyof typeof StageEvents, RealValues<IvsSdk.StageEvents>> = StageEvents;
const _sameStates: Record<string, RealValues<IvsSdk.StageConnectionState>> = StageConnectionState;
const _sameSubscribe: Record<string, RealValues<IvsSdk.SubscribeType>> = SubscribeType;
const _sameStreamTypes: Record<string, RealValues<IvsSdk.StreamType>> = StreamType;
void [_sameEvents, _sameStates, _sameSubscribe, _sameStreamTypes];

export class FakeStage {
  readonly listeners = new Map<string, Set<Listener>>();
  joinCalls = 0;
  leaveCalls = 0;
  refreshCalls = 0;
  private settleJoin: { resolve: () => void; reject: (error: unknown) => void } | undefined;

  constructor(
    readonly token: string,
    readonly strategy: StageStrategy,
    private readonly sdk: FakeStageSdk,
    /** The local options the app passed (`subscribeOnJoin`, `standby`). */
    readonly configuration: Record<string, unknown> = {},
  ) {
    if (sdk.nextConstructorError) {
      const error = sdk.nextConstructorError;
      sdk.nextConstructorError = undefined;
      throw error;
    }
    sdk.stages.push(this);
  }

  refreshStrategy(): void {
    this.refreshCalls += 1;
  }

  /** What the strategy asks of a publisher now: its stream types, or a SubscribeType. */
  subscribesTo(): unknown {
    return this.strategy.shouldSubscribeToParticipant(participantFor('publisher') as never);
  }

  on(event: string, listener: Listener): void {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)?.add(listener);
  }

  off(event: string, listener: Listener): void {
    this.listeners.get(event)?.delete(listener);
  }

  join(): Promise<void> {
    this.joinCalls += 1;
    return new Promise((resolve, reject) => {
      this.settleJoin = { resolve, reject };
    });
  }

  // An arrow property, like the real SDK's `leave`.
  leave = (): void => {
    this.leaveCalls += 1;
    // The real SDK reports its own leave too; the app must have stopped listening by now.
    this.emit(StageEvents.STAGE_CONNECTION_STATE_CHANGED, StageConnectionState.DISCONNECTED);
    this.emit(StageEvents.STAGE_LEFT, 'user-initiated');
  };

  listenerCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  emit(event: string, ...args: unknown[]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      (listener as (...values: unknown[]) => void)(...args);
    }
  }

  /** The real SDK's successful join: connecting, connected, then the join resolves. */
  connect(): void {
    this.emit(StageEvents.STAGE_CONNECTION_STATE_CHANGED, StageConnectionState.CONNECTING);
    this.emit(StageEvents.STAGE_CONNECTION_STATE_CHANGED, StageConnectionState.CONNECTED);
    this.settleJoin?.resolve();
  }

  failJoin(error: unknown): void {
    this.settleJoin?.reject(error);
  }

  dropConnection(): void {
    this.emit(StageEvents.STAGE_CONNECTION_STATE_CHANGED, StageConnectionState.DISCONNECTED);
  }

  /** A publisher's audio and video streams added (as IVS announces them), the streams returned. */
  addVideoStream(track: MediaStreamTrack, participantId = 'publisher'): FakeStageStream[] {
    const streams: FakeStageStream[] = [
      fakeStream('audio', fakeTrack('audio')),
      fakeStream('video', track),
    ];
    this.emit(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, participantFor(participantId), streams);
    return streams;
  }

  removeStreams(streams: FakeStageStream[], participantId = 'publisher'): void {
    this.emit(
      StageEvents.STAGE_PARTICIPANT_STREAMS_REMOVED,
      participantFor(participantId),
      streams,
    );
  }

  participantLeft(participantId = 'publisher'): void {
    this.emit(StageEvents.STAGE_PARTICIPANT_LEFT, participantFor(participantId));
  }
}

export interface FakeStageStream {
  id: string;
  streamType: (typeof StreamType)[keyof typeof StreamType];
  mediaStreamTrack: MediaStreamTrack;
  requestRTCStats: () => Promise<RTCStatsReport | undefined>;
}

/** What the SDK's STAGE_STREAM_SEI_MESSAGE_RECEIVED carries: the participant, `{ uuid, payload }`. */
export function seiMessageFrom(stage: FakeStage, participantId: string, payload: number[]): void {
  stage.emit(StageEvents.STAGE_STREAM_SEI_MESSAGE_RECEIVED, participantFor(participantId), {
    uuid: new ArrayBuffer(16),
    payload: Uint8Array.from(payload).buffer,
  });
}

function participantFor(id: string) {
  return { id, userId: 'camera', isLocal: false };
}

function fakeStream(kind: 'audio' | 'video', track: MediaStreamTrack): FakeStageStream {
  return {
    id: track.id,
    streamType: kind === 'audio' ? StreamType.AUDIO : StreamType.VIDEO,
    mediaStreamTrack: track,
    requestRTCStats: () => Promise.resolve(undefined),
  };
}

export class FakeStageSdk {
  readonly stages: FakeStage[] = [];
  nextConstructorError: unknown;

  readonly StageEvents = StageEvents;
  readonly StageConnectionState = StageConnectionState;
  readonly SubscribeType = SubscribeType;
  readonly StageSubscribeStreamType = StageSubscribeStreamType;
  readonly StreamType = StreamType;
  readonly Stage = stageClassFor(this);

  /** An SDK like IVS's own, which has no joins on standby (decision 0112). */
  withoutStandby(): this {
    Reflect.deleteProperty(this.Stage, 'supportsStandby');
    return this;
  }

  get lastStage(): FakeStage {
    const stage = this.stages.at(-1);
    if (!stage) throw new Error('No stage was created');
    return stage;
  }

  /** The fake, typed as the real SDK's surface the app reads. */
  asStageSdk(): StageSdk {
    return this as unknown as StageSdk;
  }

  install(): void {
    window.IVSBroadcastClient = this.asStageSdk();
  }
}

function stageClassFor(
  sdk: FakeStageSdk,
): new (token: string, strategy: StageStrategy, configuration?: object) => FakeStage {
  return class extends FakeStage {
    /** As the local stage's SDK (decision 0112); `withoutStandby()` makes an SDK like IVS's. */
    static supportsStandby = true;

    constructor(token: string, strategy: StageStrategy, configuration?: object) {
      super(token, strategy, sdk, { ...configuration });
    }
  };
}

export function fakeTrack(kind: 'audio' | 'video' = 'video'): MediaStreamTrack {
  return { kind, id: `${kind}-${Math.random().toString(36).slice(2)}` } as MediaStreamTrack;
}
