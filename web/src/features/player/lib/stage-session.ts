/**
 * One viewer's session with one stage: fetches participant tokens, joins, listens, rejoins after
 * a lost connection, and leaves. Plain TypeScript, no React: `useStageSession` joins it to a page.
 *
 * Rules it keeps (docs/product.md#player-states):
 * - a token fetch is ignored while another one is in flight;
 * - the next join waits for the last leave, and its own leave never looks like a lost connection,
 *   because listeners are removed before `leave()` is called;
 * - only video is subscribed; the first video track of added streams goes to the view that
 *   `showIn` gave (a session may start before its player renders: the view then gets the video
 *   it shows at once);
 * - connected with no video for `VIDEO_GRACE_MS` (none added yet, or the shown one removed or its
 *   participant gone), the state says the player is waiting for video; the next video ends it;
 * - after a lost connection, the reconnect policy says how long each attempt waits, and when to
 *   stop;
 * - a reconnect attempt (its token fetch and its join) that has not joined within
 *   `ATTEMPT_TIMEOUT_MS` fails, so that a join which keeps trying by itself (both SDKs try for a
 *   minute) never holds the player's own schedule; the first join has the SDK's own time-out and
 *   error.
 */
import { uiText } from '@/config/ui-text';
import { errorMessage } from '@/lib/error-message';
import { missingBrowserFeature } from './browser-support';
import type { ReconnectPolicy } from '@tailcam/protocol/reconnect-policy';
import {
  initialPlayerState,
  playerReconnectPolicy,
  transition,
  type PlayerEvent,
  type PlayerState,
} from './player-machine';
import {
  createViewerStrategy,
  type RemoteStageStream,
  type Stage,
  type StageConnectionState,
  type SeiMessage,
  type StageError,
  type StageParticipantInfo,
  type StageSdk,
  type StageStream,
  type StageStreamLayer,
  viewerStageConfiguration,
} from './stage-sdk';
import {
  adaptingStream,
  NO_LAYERS,
  VIDEO_ADAPTATION_CHANGED,
  type LayerOption,
  type VideoLayers,
} from './video-layers';

/** Where a session's video goes: the player's video element. */
export interface VideoView {
  /** A video stream to show: its track goes into the video element, its stats to the overlay. */
  onVideoTrack: (track: MediaStreamTrack, stream: StageStream) => void;
  /** The shown video stream was removed, or its participant left. */
  onVideoRemoved?: () => void;
}

export interface StageSessionOptions {
  stageId: string;
  getSdk: () => StageSdk | undefined;
  fetchParticipantToken: (stageId: string, signal: AbortSignal) => Promise<string>;
  /** Defaults to the player's (docs/product.md#player-states). */
  reconnectPolicy?: ReconnectPolicy;
}

/**
 * How long the player may be connected with no video before it says it is waiting. A normal join
 * adds the stream a few hundred milliseconds after CONNECTED (and a publisher that takes over
 * adds its stream as the old one goes), so the notice must not flash on either.
 */
export const VIDEO_GRACE_MS = 2_000;

/**
 * How long one attempt, token fetch and join together, may take before it counts as failed. A
 * join on a busy machine takes a second or two; a stage that is down keeps the SDK's join
 * retrying by itself for up to a minute, which would stretch the reconnect schedule past it.
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;

interface JoinedStage {
  stage: Stage;
  removeListeners: () => void;
}

interface ShownVideo {
  participantId: string;
  stream: StageStream;
  /** Stops listening to the stream's adaptation news (the local stage's SDK only). */
  stopAdaptation?: () => void;
}

export class StageSession {
  private state: PlayerState = initialPlayerState;
  private readonly subscribers = new Set<() => void>();
  private joined: JoinedStage | undefined;
  private tokenFetch: AbortController | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  /** The bound of the attempt in flight (token fetch, then join), cleared once it joined. */
  private attemptTimer: ReturnType<typeof setTimeout> | undefined;
  private videoGraceTimer: ReturnType<typeof setTimeout> | undefined;
  private shownVideo: ShownVideo | undefined;
  private lastFailure: string | undefined;
  private readonly reconnectPolicy: ReconnectPolicy;
  /** Where the video goes (`showIn`); none yet for a session started ahead of its player. */
  private view: VideoView | undefined;
  private started = false;
  private disposed = false;
  /** The shown video's layers (a snapshot, replaced on change). */
  private layers: VideoLayers = NO_LAYERS;
  /** Who hears the shown video's in-band messages (`onInBandMessage`). */
  private readonly inBandListeners = new Set<(message: SeiMessage) => void>();
  /** The layer asked for; null: the stage chooses. Kept across rejoins. */
  private preferredLayer: LayerOption | null = null;
  /** Joined with its video on standby, until `show()` (decision 0112). */
  private standby = false;

  constructor(private readonly options: StageSessionOptions) {
    this.reconnectPolicy = options.reconnectPolicy ?? playerReconnectPolicy();
  }

  // `subscribe` and `getSnapshot` are what React's useSyncExternalStore reads: the snapshot is the
  // same object until the state changes, so an unchanged state renders nothing.
  getSnapshot = (): PlayerState => this.state;

  subscribe = (subscriber: () => void): (() => void) => {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  };

  /**
   * Sends the video to `view` from now on, and the video shown now at once: a session started
   * before its player rendered (early-stage-sessions.ts) may have its track already.
   */
  showIn(view: VideoView): void {
    this.view = view;
    const shown = this.shownVideo;
    if (shown && !this.disposed) view.onVideoTrack(shown.stream.mediaStreamTrack, shown.stream);
  }

  /** Fetches a participant token and joins the stage. Only the first call does anything. */
  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    void this.connect();
  }

  /**
   * Starts on standby (decision 0112): joined, its video connected but not sent (the real SDK:
   * not subscribed) until `show()`, and no 'waiting for video' meanwhile.
   */
  standBy(): void {
    if (this.started) return;
    this.standby = true;
    this.start();
  }

  /** Asks for the video of a session on standby: the stage sends it from a key frame at once. */
  show(): void {
    if (!this.standby) return;
    this.standby = false;
    this.joined?.stage.refreshStrategy();
    if (this.state.status === 'connected' && !this.shownVideo) this.expectVideo();
  }

  /** 'Retry Connection': a new participant token and a new join, at once. */
  retry(): void {
    if (this.state.status !== 'error') return;
    this.dispatch({ type: 'RETRY' });
    void this.connect();
  }

  /** Leaves the stage, removes every listener and cancels whatever is pending. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.attemptTimer);
    this.tokenFetch?.abort();
    this.leaveStage();
    this.subscribers.clear();
    this.inBandListeners.clear();
  }

  /** The shown video's simulcast layers, for the quality choice and the stats. */
  getLayers = (): VideoLayers => this.layers;

  /**
   * Asks for a layer of the video (a label of `getLayers()`), or the stage's choice (null). The
   * strategy answers the SDK with it from now on, at once and after a rejoin.
   */
  preferLayer(label: string | null): void {
    if (this.disposed || label === (this.preferredLayer?.label ?? null)) return;
    const layer = this.layers.layers.find((each) => each.label === label);
    if (label !== null && !layer) return;
    this.preferredLayer = layer ?? null;
    this.setLayers({ ...this.layers, preferred: this.preferredLayer });
    this.joined?.stage.refreshStrategy();
  }

  /**
   * Each in-band message of the shown video's frames (the flight data, docs/product.md#flight-data),
   * until the returned function is called. Another participant's are not the shown video's.
   */
  onInBandMessage(listener: (message: SeiMessage) => void): () => void {
    this.inBandListeners.add(listener);
    return () => this.inBandListeners.delete(listener);
  }

  /** The video stream shown now, for its stats; undefined while there is none. */
  get videoStream(): StageStream | undefined {
    return this.shownVideo?.stream;
  }

  private async connect(): Promise<void> {
    if (this.disposed || this.tokenFetch) return; // one token fetch at a time
    const missing = missingBrowserFeature();
    if (missing !== undefined) {
      this.attemptFailed(missing);
      return;
    }
    const sdk = this.options.getSdk();
    if (!sdk) {
      this.attemptFailed(uiText.errors.sdkNotLoaded);
      return;
    }

    const tokenFetch = new AbortController();
    this.tokenFetch = tokenFetch;
    clearTimeout(this.attemptTimer);
    this.attemptTimer = undefined;
    if (this.state.status === 'reconnecting') this.boundAttempt(tokenFetch);
    let participantToken: string;
    try {
      participantToken = await this.options.fetchParticipantToken(
        this.options.stageId,
        tokenFetch.signal,
      );
    } catch (error) {
      if (!tokenFetch.signal.aborted) this.attemptFailed(errorMessage(error));
      return;
    } finally {
      if (this.tokenFetch === tokenFetch) this.tokenFetch = undefined;
    }
    if (this.disposed || tokenFetch.signal.aborted) return;

    this.leaveStage();
    let stage: Stage;
    try {
      stage = new sdk.Stage(
        participantToken,
        createViewerStrategy(
          sdk,
          () => this.preferredLayer?.label ?? null,
          () => !this.standby,
        ),
        viewerStageConfiguration(sdk, this.standby),
      );
    } catch (error) {
      this.attemptFailed(errorMessage(error));
      return;
    }
    this.joined = { stage, removeListeners: this.addListeners(sdk, stage) };
    try {
      await stage.join();
      if (this.joined?.stage === stage) clearTimeout(this.attemptTimer);
    } catch (error) {
      if (this.joined?.stage === stage) this.attemptFailed(errorMessage(error));
    }
  }

  /** Fails the reconnect attempt that `tokenFetch` began if it has not joined in time. */
  private boundAttempt(tokenFetch: AbortController): void {
    this.attemptTimer = setTimeout(() => {
      if (this.tokenFetch === tokenFetch) {
        this.tokenFetch = undefined;
        tokenFetch.abort();
        this.attemptFailed(uiText.errors.joinTimedOut);
      } else if (this.joined) {
        // The timer is this attempt's (each attempt replaces it; a join or CONNECTED clears it).
        this.attemptFailed(uiText.errors.joinTimedOut);
      }
    }, ATTEMPT_TIMEOUT_MS);
  }

  private addListeners(sdk: StageSdk, stage: Stage): () => void {
    const { StageEvents, StageConnectionState, StreamType } = sdk;

    const onConnectionStateChanged = (connectionState: StageConnectionState) => {
      if (connectionState === StageConnectionState.CONNECTED) {
        clearTimeout(this.attemptTimer);
        this.dispatch({ type: 'STAGE_CONNECTED' });
        if (!this.shownVideo && !this.standby) this.expectVideo();
      } else if (connectionState === StageConnectionState.DISCONNECTED) {
        this.dispatch({ type: 'STAGE_DISCONNECTED' });
      }
    };
    const onStreamsAdded = (participant: StageParticipantInfo, streams: StageStream[]) => {
      const video = streams.find((stream) => stream.streamType === StreamType.VIDEO);
      if (!video) return;
      this.shownVideo?.stopAdaptation?.();
      this.shownVideo = { participantId: participant.id, stream: video };
      if ('getLayers' in video) {
        const remote = video as RemoteStageStream;
        this.readLayers(remote);
        // The local stage's own news: the video paused for a slow link, the stage's estimate.
        const adapting = adaptingStream(remote);
        if (adapting) {
          const listener = () => {
            if (this.shownVideo?.stream === remote) this.readLayers(remote);
          };
          adapting.on(VIDEO_ADAPTATION_CHANGED, listener);
          this.shownVideo.stopAdaptation = () => adapting.off(VIDEO_ADAPTATION_CHANGED, listener);
        }
      }
      clearTimeout(this.videoGraceTimer);
      this.view?.onVideoTrack(video.mediaStreamTrack, video);
      this.dispatch({ type: 'VIDEO_ADDED' });
    };
    const onStreamsRemoved = (_participant: StageParticipantInfo, streams: StageStream[]) => {
      const shown = this.shownVideo?.stream;
      if (shown && streams.some((stream) => stream === shown || stream.id === shown.id)) {
        this.videoGone();
      }
    };
    const onParticipantLeft = (participant: StageParticipantInfo) => {
      if (this.shownVideo?.participantId === participant.id) this.videoGone();
    };
    const onError = (error: StageError) => {
      const message =
        typeof error?.message === 'string' && error.message.trim() !== ''
          ? error.message
          : uiText.errors.unknownStageError;
      this.dispatch({ type: 'STAGE_ERROR', message });
    };

    const onLayers = (_participant: StageParticipantInfo, stream: RemoteStageStream) => {
      if (stream === this.shownVideo?.stream) this.readLayers(stream);
    };
    const onSeiMessage = (participant: StageParticipantInfo, message: SeiMessage) => {
      if (participant.id !== this.shownVideo?.participantId || this.disposed) return;
      for (const listener of this.inBandListeners) listener(message);
    };

    stage.on(StageEvents.STAGE_CONNECTION_STATE_CHANGED, onConnectionStateChanged);
    stage.on(StageEvents.STAGE_STREAM_LAYERS_CHANGED, onLayers);
    stage.on(StageEvents.STAGE_STREAM_LAYER_SELECTED, onLayers);
    stage.on(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, onStreamsAdded);
    stage.on(StageEvents.STAGE_PARTICIPANT_STREAMS_REMOVED, onStreamsRemoved);
    stage.on(StageEvents.STAGE_PARTICIPANT_LEFT, onParticipantLeft);
    stage.on(StageEvents.ERROR, onError);
    stage.on(StageEvents.STAGE_STREAM_SEI_MESSAGE_RECEIVED, onSeiMessage);
    return () => {
      stage.off(StageEvents.STAGE_CONNECTION_STATE_CHANGED, onConnectionStateChanged);
      stage.off(StageEvents.STAGE_STREAM_LAYERS_CHANGED, onLayers);
      stage.off(StageEvents.STAGE_STREAM_LAYER_SELECTED, onLayers);
      stage.off(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, onStreamsAdded);
      stage.off(StageEvents.STAGE_PARTICIPANT_STREAMS_REMOVED, onStreamsRemoved);
      stage.off(StageEvents.STAGE_PARTICIPANT_LEFT, onParticipantLeft);
      stage.off(StageEvents.ERROR, onError);
      stage.off(StageEvents.STAGE_STREAM_SEI_MESSAGE_RECEIVED, onSeiMessage);
    };
  }

  /** The shown stream's layers as the SDK has them now. */
  private readLayers(stream: RemoteStageStream): void {
    const option = (layer: StageStreamLayer): LayerOption => ({
      label: layer.label,
      width: layer.width,
      height: layer.height,
    });
    const selected = stream.getSelectedLayer();
    const adaptation = adaptingStream(stream)?.getVideoAdaptation();
    this.setLayers({
      layers: stream.getLayers().map(option),
      selected: selected && option(selected),
      adapting: stream.isAdapting,
      preferred: this.preferredLayer,
      videoPaused: adaptation?.videoPaused ?? false,
      estimateBps: adaptation?.estimateBps,
    });
  }

  private setLayers(layers: VideoLayers): void {
    this.layers = layers;
    if (!this.disposed) for (const subscriber of this.subscribers) subscriber();
  }

  private videoGone(): void {
    this.shownVideo?.stopAdaptation?.();
    this.shownVideo = undefined;
    this.setLayers({ ...NO_LAYERS, preferred: this.preferredLayer });
    this.view?.onVideoRemoved?.();
    this.expectVideo();
  }

  /** Waits the grace period for a video stream, then says the player is waiting for one. */
  private expectVideo(): void {
    clearTimeout(this.videoGraceTimer);
    this.videoGraceTimer = setTimeout(() => {
      if (!this.shownVideo) this.dispatch({ type: 'VIDEO_MISSING' });
    }, VIDEO_GRACE_MS);
  }

  /** Listeners first, then leave: the app's own leave must never reach its reconnect rule. */
  private leaveStage(): void {
    const joined = this.joined;
    if (!joined) return;
    this.joined = undefined;
    clearTimeout(this.videoGraceTimer);
    if (this.shownVideo) {
      this.shownVideo.stopAdaptation?.();
      this.shownVideo = undefined;
      this.view?.onVideoRemoved?.();
      this.setLayers({ ...NO_LAYERS, preferred: this.preferredLayer });
    }
    joined.removeListeners();
    try {
      joined.stage.leave();
    } catch {
      // A stage that cannot leave cleanly is gone either way; nothing is left to undo.
    }
  }

  private attemptFailed(message: string): void {
    clearTimeout(this.attemptTimer);
    this.leaveStage();
    this.lastFailure = message;
    this.dispatch({ type: 'ATTEMPT_FAILED', message });
  }

  private dispatch(event: PlayerEvent): void {
    if (this.disposed) return;
    const previous = this.state;
    const next = transition(previous, event);
    if (next === previous) return;
    this.state = next;

    if (next.status === 'error') {
      clearTimeout(this.reconnectTimer);
      this.leaveStage();
    } else if (next.status === 'reconnecting') {
      if (previous.status === 'connected') this.leaveStage();
      this.scheduleReconnect(next.attempt);
    }
    for (const subscriber of this.subscribers) subscriber();
  }

  private scheduleReconnect(attempt: number): void {
    clearTimeout(this.reconnectTimer);
    const delay = this.reconnectPolicy.nextDelayMs(attempt);
    if (delay === null) {
      this.dispatch({
        type: 'RECONNECT_STOPPED',
        message: this.lastFailure ?? uiText.errors.connectionLost,
      });
      return;
    }
    this.reconnectTimer = setTimeout(() => void this.connect(), delay);
  }
}
