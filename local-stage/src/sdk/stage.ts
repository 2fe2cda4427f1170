/**
 * `Stage` of the local SDK: the IVS Web Broadcast SDK's Stage API over the local stage's
 * signalling socket (../signalling.ts) and one RTCPeerConnection per subscribed participant.
 *
 * Behaviour mirrored from IVS 1.41 (docs/product.md#stage-sdk):
 * - a token that is not a JWT with stage claims throws `[JOIN_ERROR] Token is malformed` from
 *   the constructor;
 * - `join()` moves connecting → connected, or to errored with an `error` event and a rejected
 *   promise; while the events endpoint cannot be reached it keeps trying, and after about a
 *   minute rejects with `[JOIN_ERROR] Operation timed out`;
 * - a lost events socket or peer connection moves the state to `disconnected` (no `stageLeft`);
 * - `leave()` (like IVS's leaveWithReason) reports participants left, `disconnected`, then
 *   `stageLeft` with reason `user-initiated`, and closes the socket and peer connections so the
 *   stage releases them. A loss is told apart from a leave by that `stageLeft` event.
 */
import type {
  ClientMessage,
  ParticipantDescription,
  StageLeftReasonName,
  StageMessage,
} from '../signalling';
import { CLOSE_CODES } from '../signalling';
import { TypedEmitter } from './emitter';
import {
  StageConnectionState,
  StageErrorCategory,
  StageErrorCode,
  StageEvents,
  StageLeftReason,
  StageParticipantSubscribeState,
  StageSubscribeStreamType,
  SubscribeType,
} from './enums';
import { ivsError, joinRefused, StageError, stageRaisedError } from './errors';
import { parseStageMessage } from './messages';
import { RemoteStageStream, type StageParticipantInfo } from './participant';
import { parseStageToken, type StageTokenClaims } from './token';

export interface StageStrategy {
  stageStreamsToPublish(): unknown[];
  shouldPublishParticipant(participant: StageParticipantInfo): boolean;
  shouldSubscribeToParticipant(
    participant: StageParticipantInfo,
  ): SubscribeType | StageSubscribeStreamType[];
  subscribeConfiguration?(participant: StageParticipantInfo): unknown;
  // Not used by the local stage (one layer); typed loosely so any real strategy fits.
  preferredLayerForStream?: (...args: never[]) => unknown;
}

/** Local-only options (the IVS `StageConfiguration` has no equivalent; all optional). */
export interface LocalStageConfiguration {
  /** How long `join()` keeps trying before `Operation timed out` (default 60 000 ms). */
  joinTimeoutMs?: number;
}

type Info = StageParticipantInfo;
// The IVS event map, with the events the local stage never raises typed loosely.
export type StageEventMap = {
  [StageEvents.STAGE_CONNECTION_STATE_CHANGED]: (state: StageConnectionState) => void;
  [StageEvents.STAGE_PARTICIPANT_JOINED]: (participant: Info) => void;
  [StageEvents.STAGE_PARTICIPANT_LEFT]: (participant: Info) => void;
  [StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED]: (
    participant: Info,
    streams: RemoteStageStream[],
  ) => void;
  [StageEvents.STAGE_PARTICIPANT_STREAMS_REMOVED]: (
    participant: Info,
    streams: RemoteStageStream[],
  ) => void;
  [StageEvents.STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED]: (
    participant: Info,
    state: StageParticipantSubscribeState,
  ) => void;
  [StageEvents.ERROR]: (error: StageError) => void;
  [StageEvents.STAGE_LEFT]: (reason: StageLeftReason) => void;
  [StageEvents.STAGE_PARTICIPANT_PUBLISH_STATE_CHANGED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_STREAM_MUTE_CHANGED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_STREAM_SEI_MESSAGE_RECEIVED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_STREAM_LAYERS_CHANGED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_STREAM_LAYER_SELECTED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_STREAM_ADAPTION_CHANGED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_SUBSCRIBER_COUNT_CHANGED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_PARTICIPANT_METADATA_CHANGED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_PARTICIPANT_SUBTITLE_CUE_RECEIVED]: (...args: unknown[]) => void;
};

const DEFAULT_JOIN_TIMEOUT_MS = 60_000;
const JOIN_ANSWER_TIMEOUT_MS = 10_000;
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 2_000;
const PEER_DISCONNECTED_GRACE_MS = 1_000;

interface RemoteParticipant {
  info: Info;
  description: ParticipantDescription;
  subscription: Subscription | undefined;
}

interface Subscription {
  requestId: string;
  id: string | undefined;
  peer: RTCPeerConnection | undefined;
  streams: RemoteStageStream[];
  lossTimer: ReturnType<typeof setTimeout> | undefined;
}

/** One attempt at being in the stage: a socket and what hangs off it. */
interface Session {
  socket: WebSocket | undefined;
  closed: boolean;
  participants: Map<string, RemoteParticipant>;
  local: Info | undefined;
  /** Messages are applied one at a time (an ICE candidate waits for its offer). */
  queue: Promise<void>;
}

export class Stage extends TypedEmitter<StageEventMap> {
  private readonly token: string;
  private readonly claims: StageTokenClaims;
  private strategy: StageStrategy;
  private readonly joinTimeoutMs: number;
  private state: StageConnectionState = StageConnectionState.DISCONNECTED;
  private session: Session | undefined;
  private joining: Promise<void> | undefined;
  private cancelJoin: ((error: StageError) => void) | undefined;
  private requestCounter = 0;

  constructor(token: string, strategy: StageStrategy, configuration?: LocalStageConfiguration) {
    super();
    this.claims = parseStageToken(token);
    this.token = token;
    this.strategy = strategy;
    this.joinTimeoutMs = configuration?.joinTimeoutMs ?? DEFAULT_JOIN_TIMEOUT_MS;
  }

  /** Joins the stage; resolves once connected, rejects with a StageError. */
  join(): Promise<void> {
    if (this.joining) return this.joining;
    if (this.session && !this.session.closed && this.state === StageConnectionState.CONNECTED) {
      return Promise.resolve();
    }
    const attempt = this.runJoin().finally(() => {
      if (this.joining === attempt) this.joining = undefined;
    });
    this.joining = attempt;
    return attempt;
  }

  /** Leaves the stage on purpose (see the file header for the events). */
  leave = (): void => {
    const session = this.session;
    const wasJoining = this.joining !== undefined;
    if (!session && !wasJoining) return;
    this.session = undefined;
    this.cancelJoin?.(ivsError(StageErrorCode.CANCELED, StageErrorCategory.JOIN_ERROR));
    if (session) {
      this.send(session, { type: 'leave' });
      const participants = [...session.participants.values()];
      this.closeSession(session, CLOSE_CODES.normal, 'leave');
      if (session.local) this.emit(StageEvents.STAGE_PARTICIPANT_LEFT, session.local);
      for (const participant of participants) this.emitParticipantGone(participant);
    }
    this.setState(StageConnectionState.DISCONNECTED);
    this.emit(StageEvents.STAGE_LEFT, StageLeftReason.USER_INITIATED);
  };

  /** Re-asks the strategy about every participant and (un)subscribes accordingly. */
  refreshStrategy = (): void => {
    const session = this.session;
    if (!session || session.closed) return;
    for (const participant of session.participants.values())
      this.applyStrategy(session, participant);
  };

  replaceStrategy(strategy: StageStrategy): void {
    this.strategy = strategy;
    this.refreshStrategy();
  }

  // ---- Joining ----

  private async runJoin(): Promise<void> {
    this.setState(StageConnectionState.CONNECTING);
    const deadline = Date.now() + this.joinTimeoutMs;
    let canceled: StageError | undefined;
    let wake: (() => void) | undefined;
    this.cancelJoin = (error) => {
      canceled = error;
      wake?.();
    };
    try {
      for (let attempt = 0; ; attempt += 1) {
        if (canceled) throw canceled;
        const outcome = await this.tryJoinOnce(deadline, (cancel) => {
          wake = cancel;
        });
        if (canceled) throw canceled;
        if (outcome === 'joined') return;
        if (outcome instanceof StageError) throw outcome;
        const wait = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 1.5 ** attempt, deadline - Date.now());
        if (wait <= 0) {
          throw ivsError(StageErrorCode.TIMEOUT, StageErrorCategory.JOIN_ERROR);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } catch (error) {
      const stageError =
        error instanceof StageError
          ? error
          : ivsError(StageErrorCode.FAILED, StageErrorCategory.JOIN_ERROR, String(error));
      if (stageError.code !== StageErrorCode.CANCELED) {
        this.setState(StageConnectionState.ERRORED);
        this.emit(StageEvents.ERROR, stageError);
      }
      throw stageError;
    } finally {
      this.cancelJoin = undefined;
    }
  }

  /**
   * One connection attempt: 'joined', a StageError from the stage (final), or 'retry' when the
   * endpoint could not be reached or the socket closed before an answer.
   */
  private tryJoinOnce(
    deadline: number,
    onCancel: (cancel: () => void) => void,
  ): Promise<'joined' | 'retry' | StageError> {
    return new Promise((resolve) => {
      let settled = false;
      const session: Session = {
        socket: undefined,
        closed: false,
        participants: new Map(),
        local: undefined,
        queue: Promise.resolve(),
      };
      const finish = (outcome: 'joined' | 'retry' | StageError) => {
        if (settled) return;
        settled = true;
        clearTimeout(answerTimer);
        if (outcome !== 'joined') this.closeSession(session, CLOSE_CODES.normal, 'join failed');
        resolve(outcome);
      };
      const answerTimer = setTimeout(
        () => finish('retry'),
        Math.max(0, Math.min(JOIN_ANSWER_TIMEOUT_MS, deadline - Date.now())),
      );
      onCancel(() => finish('retry'));

      let socket: WebSocket;
      try {
        socket = new WebSocket(this.claims.eventsUrl);
      } catch {
        finish(ivsError(StageErrorCode.FAILED, StageErrorCategory.JOIN_ERROR, 'bad events URL'));
        return;
      }
      session.socket = socket;
      socket.onopen = () => this.send(session, { type: 'join', token: this.token });
      socket.onmessage = (event: MessageEvent) => {
        const message = typeof event.data === 'string' ? parseStageMessage(event.data) : null;
        if (!message) return;
        if (!settled) {
          if (message.type === 'joined') {
            this.session = session;
            finish('joined');
            this.onJoined(session, message);
          } else if (message.type === 'error') {
            finish(joinRefused(message.code, message.message, message.details));
          }
          return;
        }
        session.queue = session.queue
          .then(() => this.onMessage(session, message))
          .catch((error: unknown) => console.error('[IVSBroadcastClient] local stage', error));
      };
      socket.onclose = () => {
        if (!settled) return finish('retry');
        this.onSocketClosed(session);
      };
      socket.onerror = () => {
        // A close event follows; nothing to do here.
      };
    });
  }

  private onJoined(session: Session, message: Extract<StageMessage, { type: 'joined' }>): void {
    session.local = {
      id: message.participantId,
      userId: this.claims.userId,
      attributes: { ...this.claims.attributes },
      capabilities: new Set(this.claims.canPublish ? ['publish', 'subscribe'] : ['subscribe']),
      isLocal: true,
      userInfo: {},
      videoStopped: true,
      audioMuted: true,
      isPublishing: false,
    };
    this.setState(StageConnectionState.CONNECTED);
    this.emit(StageEvents.STAGE_PARTICIPANT_JOINED, session.local);
    for (const description of message.participants) this.addParticipant(session, description);
  }

  // ---- In the stage ----

  private async onMessage(session: Session, message: StageMessage): Promise<void> {
    if (session.closed) return;
    switch (message.type) {
      case 'participantJoined':
        this.addParticipant(session, message.participant);
        return;
      case 'participantLeft': {
        const participant = session.participants.get(message.participantId);
        if (!participant) return;
        session.participants.delete(message.participantId);
        this.endSubscription(participant);
        this.emitParticipantGone(participant);
        return;
      }
      case 'offer':
        return this.onOffer(session, message);
      case 'candidate': {
        const subscription = this.findSubscription(session, message.subscriptionId);
        if (subscription?.peer && message.candidate) {
          await subscription.peer.addIceCandidate(message.candidate).catch(() => undefined);
        }
        return;
      }
      case 'subscriptionEnded':
        // The stage cut the media of a live subscription: for the app, the connection is lost.
        if (this.findSubscription(session, message.subscriptionId)) this.connectionLost(session);
        return;
      case 'error':
        return this.onStageError(session, message);
      case 'left':
        return this.leftByStage(session, message.reason);
      case 'joined':
        return;
    }
  }

  private onStageError(session: Session, message: Extract<StageMessage, { type: 'error' }>): void {
    const category =
      message.category === 'JOIN_ERROR'
        ? StageErrorCategory.JOIN_ERROR
        : message.category === 'PUBLISH_ERROR'
          ? StageErrorCategory.PUBLISH_ERROR
          : StageErrorCategory.SUBSCRIBE_ERROR;
    if (message.requestId) {
      const participant = [...session.participants.values()].find(
        (candidate) => candidate.subscription?.requestId === message.requestId,
      );
      if (participant) {
        participant.subscription = undefined;
        this.emit(
          StageEvents.STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED,
          participant.info,
          StageParticipantSubscribeState.ERRORED,
        );
      }
    }
    this.emit(StageEvents.ERROR, stageRaisedError(message.code, category, message.message));
    if (message.fatal) {
      this.session = undefined;
      this.closeSession(session, CLOSE_CODES.normal, 'fatal error');
      this.setState(StageConnectionState.ERRORED);
    }
  }

  private addParticipant(session: Session, description: ParticipantDescription): void {
    if (session.participants.has(description.id)) return;
    const participant: RemoteParticipant = {
      description,
      subscription: undefined,
      info: {
        id: description.id,
        userId: description.userId,
        attributes: { ...description.attributes },
        capabilities: new Set(description.publishing ? ['publish'] : []),
        isLocal: false,
        userInfo: {},
        videoStopped: !description.media.includes('video'),
        audioMuted: !description.media.includes('audio'),
        isPublishing: description.publishing,
      },
    };
    session.participants.set(description.id, participant);
    this.emit(StageEvents.STAGE_PARTICIPANT_JOINED, participant.info);
    this.applyStrategy(session, participant);
  }

  /** What the strategy asks for, limited to what the participant publishes. */
  private wantedMedia(participant: RemoteParticipant): { audio: boolean; video: boolean } {
    let answer: SubscribeType | StageSubscribeStreamType[];
    try {
      answer = this.strategy.shouldSubscribeToParticipant(participant.info);
    } catch (error) {
      console.error('[IVSBroadcastClient] shouldSubscribeToParticipant threw', error);
      answer = SubscribeType.NONE;
    }
    const kinds = Array.isArray(answer)
      ? new Set<string>(answer)
      : new Set<string>(
          answer === SubscribeType.AUDIO_VIDEO
            ? [StageSubscribeStreamType.AUDIO, StageSubscribeStreamType.VIDEO]
            : answer === SubscribeType.AUDIO_ONLY
              ? [StageSubscribeStreamType.AUDIO]
              : [],
        );
    const published = participant.description.media;
    return {
      audio: kinds.has(StageSubscribeStreamType.AUDIO) && published.includes('audio'),
      video: kinds.has(StageSubscribeStreamType.VIDEO) && published.includes('video'),
    };
  }

  private applyStrategy(session: Session, participant: RemoteParticipant): void {
    if (!participant.description.publishing || !this.claims.canSubscribe) return;
    const media = this.wantedMedia(participant);
    const wanted = media.audio || media.video;
    if (!wanted) {
      if (participant.subscription) {
        this.endSubscription(participant, session);
        this.emit(
          StageEvents.STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED,
          participant.info,
          StageParticipantSubscribeState.NOT_SUBSCRIBED,
        );
      }
      return;
    }
    if (participant.subscription) return;
    this.requestCounter += 1;
    participant.subscription = {
      requestId: `subscribe-${this.requestCounter}`,
      id: undefined,
      peer: undefined,
      streams: [],
      lossTimer: undefined,
    };
    this.emit(
      StageEvents.STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED,
      participant.info,
      StageParticipantSubscribeState.ATTEMPTING_SUBSCRIBE,
    );
    this.send(session, {
      type: 'subscribe',
      requestId: participant.subscription.requestId,
      participantId: participant.info.id,
      media,
    });
  }

  private async onOffer(session: Session, message: Extract<StageMessage, { type: 'offer' }>) {
    const participant = session.participants.get(message.participantId);
    const subscription = participant?.subscription;
    if (!participant || !subscription || subscription.requestId !== message.requestId) {
      this.send(session, { type: 'unsubscribe', subscriptionId: message.subscriptionId });
      return;
    }
    subscription.id = message.subscriptionId;
    const peer = new RTCPeerConnection({ iceServers: [] });
    subscription.peer = peer;
    peer.onicecandidate = ({ candidate }) => {
      this.send(session, {
        type: 'candidate',
        subscriptionId: message.subscriptionId,
        candidate: candidate
          ? {
              candidate: candidate.candidate,
              sdpMid: candidate.sdpMid,
              sdpMLineIndex: candidate.sdpMLineIndex,
            }
          : null,
      });
    };
    // Tracks of the offer arrive while it is applied; they are announced together, as IVS does.
    let pending: RemoteStageStream[] | undefined = [];
    peer.ontrack = ({ track }) => {
      if (session.closed || participant.subscription !== subscription) return;
      const stream = new RemoteStageStream(track, participant.info, peer);
      subscription.streams.push(stream);
      if (pending) pending.push(stream);
      else this.emit(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, participant.info, [stream]);
    };
    peer.onconnectionstatechange = () => {
      if (session.closed || participant.subscription !== subscription) return;
      const state = peer.connectionState;
      if (state === 'connected') {
        clearTimeout(subscription.lossTimer);
        subscription.lossTimer = undefined;
        this.emit(
          StageEvents.STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED,
          participant.info,
          StageParticipantSubscribeState.SUBSCRIBED,
        );
      } else if (state === 'failed') {
        this.connectionLost(session);
      } else if (state === 'disconnected' && !subscription.lossTimer) {
        subscription.lossTimer = setTimeout(
          () => this.connectionLost(session),
          PEER_DISCONNECTED_GRACE_MS,
        );
      }
    };
    try {
      await peer.setRemoteDescription({ type: 'offer', sdp: message.sdp });
      const added = pending;
      pending = undefined;
      if (added.length > 0 && !session.closed && participant.subscription === subscription) {
        this.emit(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, participant.info, added);
      }
      const answer = await peer.createAnswer();
      await peer.setLocalDescription(answer);
      if (session.closed || participant.subscription !== subscription) return;
      this.send(session, {
        type: 'answer',
        subscriptionId: message.subscriptionId,
        sdp: peer.localDescription?.sdp ?? answer.sdp ?? '',
      });
    } catch (error) {
      if (session.closed) return;
      this.endSubscription(participant, session);
      this.emit(
        StageEvents.ERROR,
        ivsError(StageErrorCode.FAILED, StageErrorCategory.SUBSCRIBE_ERROR, String(error)),
      );
    }
  }

  private findSubscription(session: Session, subscriptionId: string): Subscription | undefined {
    for (const participant of session.participants.values()) {
      if (participant.subscription?.id === subscriptionId) return participant.subscription;
    }
    return undefined;
  }

  /** Closes a participant's subscription; tells the stage when the session goes on. */
  private endSubscription(participant: RemoteParticipant, session?: Session): void {
    const subscription = participant.subscription;
    if (!subscription) return;
    participant.subscription = undefined;
    closeSubscription(subscription);
    if (session && subscription.id) {
      this.send(session, { type: 'unsubscribe', subscriptionId: subscription.id });
    }
    if (subscription.streams.length > 0) {
      this.emit(
        StageEvents.STAGE_PARTICIPANT_STREAMS_REMOVED,
        participant.info,
        subscription.streams,
      );
    }
  }

  private emitParticipantGone(participant: RemoteParticipant): void {
    const streams = participant.subscription?.streams ?? [];
    if (participant.subscription) closeSubscription(participant.subscription);
    participant.subscription = undefined;
    if (streams.length > 0) {
      this.emit(StageEvents.STAGE_PARTICIPANT_STREAMS_REMOVED, participant.info, streams);
    }
    this.emit(StageEvents.STAGE_PARTICIPANT_LEFT, participant.info);
  }

  // ---- Endings ----

  /** The socket or a peer connection was lost (not a leave): state `disconnected`. */
  private connectionLost(session: Session): void {
    if (session.closed || this.session !== session) return;
    this.session = undefined;
    this.closeSession(session, CLOSE_CODES.normal, 'connection lost');
    this.setState(StageConnectionState.DISCONNECTED);
  }

  private onSocketClosed(session: Session): void {
    if (session.closed || this.session !== session) return;
    this.connectionLost(session);
  }

  /** The stage ended the session on purpose (e.g. the token joined again elsewhere). */
  private leftByStage(session: Session, reason: StageLeftReasonName): void {
    if (this.session !== session) return;
    this.session = undefined;
    const participants = [...session.participants.values()];
    this.closeSession(session, CLOSE_CODES.normal, 'left by stage');
    if (session.local) this.emit(StageEvents.STAGE_PARTICIPANT_LEFT, session.local);
    for (const participant of participants) this.emitParticipantGone(participant);
    this.setState(StageConnectionState.DISCONNECTED);
    const known = Object.values(StageLeftReason).find((value) => value === reason);
    this.emit(StageEvents.STAGE_LEFT, known ?? StageLeftReason.UNKNOWN);
  }

  private closeSession(session: Session, code: number, reason: string): void {
    if (session.closed) return;
    session.closed = true;
    for (const participant of session.participants.values()) {
      if (participant.subscription) closeSubscription(participant.subscription);
    }
    const socket = session.socket;
    if (socket) {
      socket.onopen = null;
      socket.onmessage = null;
      socket.onclose = null;
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
        socket.close(code, reason);
      }
    }
  }

  private send(session: Session, message: ClientMessage): void {
    const socket = session.socket;
    if (socket && socket.readyState === WebSocket.OPEN && !session.closed) {
      socket.send(JSON.stringify(message));
    }
  }

  private setState(state: StageConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.emit(StageEvents.STAGE_CONNECTION_STATE_CHANGED, state);
  }
}

function closeSubscription(subscription: Subscription): void {
  clearTimeout(subscription.lossTimer);
  subscription.lossTimer = undefined;
  const peer = subscription.peer;
  if (!peer) return;
  peer.onicecandidate = null;
  peer.ontrack = null;
  peer.onconnectionstatechange = null;
  peer.close();
}
