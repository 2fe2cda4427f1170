/**
 * `Stage` of the local SDK: the IVS Web Broadcast SDK's Stage API, its public face only. Under
 * it, as LiveKit's client is layered: the join loop (./join-loop.ts), the session that applies
 * the stage's messages (./session.ts), one peer per subscription (./subscription-peer.ts) and the
 * signalling socket (./signal-socket.ts, protocol in ../signalling.ts).
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
import { TypedEmitter } from './emitter';
import {
  type InitialLayerPreference,
  StageConnectionState,
  StageErrorCategory,
  StageErrorCode,
  StageEvents,
  StageLeftReason,
  StageSubscribeStreamType,
  SubscribeType,
} from './enums';
import { ivsError, StageError } from './errors';
import { joinedOfferPublishers } from '../signalling';
import type { StageEventMap } from './events';
import { joinOnce, joinWithRetries, type JoinedMessage } from './join-loop';
import type { RemoteStageStream, StageParticipantInfo, StageStreamLayer } from './participant';
import { Session, type RemoteParticipant, type SessionOwner, type WantedMedia } from './session';
import type { SignalSocket } from './signal-socket';
import { parseStageToken, type StageTokenClaims } from './token';

export type { StageEventMap } from './events';

export interface StageStrategy {
  stageStreamsToPublish(): unknown[];
  shouldPublishParticipant(participant: StageParticipantInfo): boolean;
  shouldSubscribeToParticipant(
    participant: StageParticipantInfo,
  ): SubscribeType | StageSubscribeStreamType[];
  /**
   * Of IVS's SubscribeConfiguration, the local stage reads `simulcast.initialLayerPreference` and
   * `inBandMessaging.enabled`.
   */
  subscribeConfiguration?(participant: StageParticipantInfo):
    | {
        simulcast?: { initialLayerPreference?: `${InitialLayerPreference}` };
        inBandMessaging?: { enabled: boolean };
      }
    | undefined;
  /**
   * A layer of `stream.getLayers()` or its label; undefined or null: the stage chooses. Its
   * parameters are typed `never` so that a strategy typed with the real SDK fits: its stream class
   * has private members, which no other class can match.
   */
  preferredLayerForStream?(
    participant: never,
    stream: never,
  ): StageStreamLayer | string | undefined | null;
}

/** How the local Stage calls `preferredLayerForStream` (see StageStrategy). */
type PreferredLayerForStream = (
  participant: StageParticipantInfo,
  stream: RemoteStageStream,
) => StageStreamLayer | string | undefined | null;

/** Local-only options (the IVS `StageConfiguration` has no equivalent; all optional). */
export interface LocalStageConfiguration {
  /** How long `join()` keeps trying before `Operation timed out` (default 60 000 ms). */
  joinTimeoutMs?: number;
  /**
   * What the strategy will answer `shouldSubscribeToParticipant` for the publishers on the stage
   * when it joins, if the app knows. The stage then sends their offers along with its answer to
   * the join, a round trip sooner (decision 0076). The strategy still decides: a participant it
   * answers otherwise has that offer refused and is subscribed to as it says.
   */
  subscribeOnJoin?: SubscribeType | StageSubscribeStreamType[];
  /**
   * Standby (decision 0112): while the strategy answers NONE for a publisher, the SDK keeps a
   * subscription to the media `subscribeOnJoin` names all the same, connected, with none of its
   * media sent by the stage, and tells the app nothing of it. The strategy's first answer that
   * asks for those media (`refreshStrategy`) takes it: the stage starts its media at once, from a
   * key frame, with no new connection to make. The real SDK has no standby (NONE subscribes to
   * nothing): `Stage.supportsStandby` says which SDK this is.
   */
  standby?: boolean;
}

const DEFAULT_JOIN_TIMEOUT_MS = 60_000;

export class Stage extends TypedEmitter<StageEventMap> {
  /** The local stage's own (the real SDK has none): a join's video may wait on standby (0112). */
  static readonly supportsStandby = true;
  private readonly token: string;
  private readonly claims: StageTokenClaims;
  private strategy: StageStrategy;
  private readonly joinTimeoutMs: number;
  /** The media the join asks the stage to offer of its publishers at once (none: undefined). */
  private readonly offersOnJoin: (WantedMedia & { standby?: true }) | undefined;
  private state: StageConnectionState = StageConnectionState.DISCONNECTED;
  private session: Session | undefined;
  private joining: Promise<void> | undefined;
  private joinAbort: AbortController | undefined;
  private readonly host: SessionOwner = {
    emit: (event, ...args) => this.emit(event, ...args),
    wantedMedia: (participant) => this.wantedMedia(participant),
    preferredLayer: (participant, stream) => {
      const strategy = this.strategy;
      const ask = strategy.preferredLayerForStream as PreferredLayerForStream | undefined;
      const layer = this.askStrategy('preferredLayerForStream', () =>
        ask?.call(strategy, participant, stream),
      );
      return typeof layer === 'string' ? layer : (layer?.label ?? null);
    },
    initialLayer: (participant) =>
      this.askStrategy('subscribeConfiguration', () =>
        this.strategy.subscribeConfiguration?.(participant),
      )?.simulcast?.initialLayerPreference,
    standbyMedia: (participant) => {
      const offers = this.offersOnJoin;
      if (!offers?.standby) return undefined;
      const published = participant.description.media;
      return {
        audio: offers.audio && published.includes('audio'),
        video: offers.video && published.includes('video'),
      };
    },
    inBandMessaging: (participant) =>
      this.askStrategy('subscribeConfiguration', () =>
        this.strategy.subscribeConfiguration?.(participant),
      )?.inBandMessaging?.enabled === true,
    ended: (session, state, reason) => {
      if (this.session !== session) return;
      this.session = undefined;
      this.setState(state);
      if (reason) this.emit(StageEvents.STAGE_LEFT, reason);
    },
  };

  constructor(token: string, strategy: StageStrategy, configuration?: LocalStageConfiguration) {
    super();
    this.claims = parseStageToken(token);
    this.token = token;
    this.strategy = strategy;
    this.joinTimeoutMs = configuration?.joinTimeoutMs ?? DEFAULT_JOIN_TIMEOUT_MS;
    const onJoin = configuration?.subscribeOnJoin;
    const kinds = onJoin === undefined ? new Set<string>() : subscribedKinds(onJoin);
    const offers = {
      audio: kinds.has(StageSubscribeStreamType.AUDIO),
      video: kinds.has(StageSubscribeStreamType.VIDEO),
    };
    this.offersOnJoin =
      this.claims.canSubscribe && (offers.audio || offers.video)
        ? { ...offers, ...(configuration?.standby === true ? { standby: true as const } : {}) }
        : undefined;
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
    if (!session && !this.joining) return;
    this.session = undefined;
    this.joinAbort?.abort();
    session?.leave();
    this.setState(StageConnectionState.DISCONNECTED);
    this.emit(StageEvents.STAGE_LEFT, StageLeftReason.USER_INITIATED);
  };

  /** Re-asks the strategy about every participant and (un)subscribes accordingly. */
  refreshStrategy = (): void => {
    this.session?.refresh();
  };

  replaceStrategy(strategy: StageStrategy): void {
    this.strategy = strategy;
    this.refreshStrategy();
  }

  private async runJoin(): Promise<void> {
    this.setState(StageConnectionState.CONNECTING);
    const abort = new AbortController();
    this.joinAbort = abort;
    try {
      await joinWithRetries(
        (deadline, signal) =>
          joinOnce(
            this.claims.eventsUrl,
            this.token,
            deadline,
            signal,
            (socket, message) => this.joined(socket, message),
            this.offersOnJoin,
          ),
        this.joinTimeoutMs,
        abort.signal,
      );
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
      this.joinAbort = undefined;
    }
  }

  private joined(socket: SignalSocket, message: JoinedMessage): void {
    const session = new Session(
      socket,
      {
        id: message.participantId,
        userId: this.claims.userId,
        attributes: { ...this.claims.attributes },
        capabilities: new Set(this.claims.canPublish ? ['publish', 'subscribe'] : ['subscribe']),
        isLocal: true,
        userInfo: {},
        videoStopped: true,
        audioMuted: true,
        isPublishing: false,
      },
      this.host,
      this.claims.iceServers,
    );
    this.session = session;
    this.setState(StageConnectionState.CONNECTED);
    this.emit(StageEvents.STAGE_PARTICIPANT_JOINED, session.local);
    // With `offers`, the stage sends the first publishers' offers after `joined`.
    const offered = new Set(joinedOfferPublishers(message.participants).map((each) => each.id));
    const offers = this.offersOnJoin;
    for (const description of message.participants) {
      session.add(description, offers && offered.has(description.id) ? offers : undefined);
    }
  }

  /** What the strategy asks for, limited to what the participant publishes. */
  private wantedMedia(participant: RemoteParticipant): WantedMedia | undefined {
    if (!participant.description.publishing || !this.claims.canSubscribe) return undefined;
    let answer: SubscribeType | StageSubscribeStreamType[];
    try {
      answer = this.strategy.shouldSubscribeToParticipant(participant.info);
    } catch (error) {
      console.error('[IVSBroadcastClient] shouldSubscribeToParticipant threw', error);
      answer = SubscribeType.NONE;
    }
    const kinds = subscribedKinds(answer);
    const published = participant.description.media;
    return {
      audio: kinds.has(StageSubscribeStreamType.AUDIO) && published.includes('audio'),
      video: kinds.has(StageSubscribeStreamType.VIDEO) && published.includes('video'),
    };
  }

  /** A strategy method's answer; one that throws counts as no answer (as IVS treats it). */
  private askStrategy<T>(name: string, ask: () => T): T | undefined {
    try {
      return ask();
    } catch (error) {
      console.error(`[IVSBroadcastClient] ${name} threw`, error);
      return undefined;
    }
  }

  private setState(state: StageConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.emit(StageEvents.STAGE_CONNECTION_STATE_CHANGED, state);
  }
}

/** The stream types a strategy's subscribe answer names. */
function subscribedKinds(answer: SubscribeType | StageSubscribeStreamType[]): Set<string> {
  if (Array.isArray(answer)) return new Set<string>(answer);
  if (answer === SubscribeType.AUDIO_VIDEO) {
    return new Set<string>([StageSubscribeStreamType.AUDIO, StageSubscribeStreamType.VIDEO]);
  }
  return new Set<string>(
    answer === SubscribeType.AUDIO_ONLY ? [StageSubscribeStreamType.AUDIO] : [],
  );
}
