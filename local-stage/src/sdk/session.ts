/**
 * Kept as one file: every subscription, shown or on standby (decision 0112), lives in the one
 * participant map the socket's messages are applied to, one at a time, and each step of one
 * (strategy, offer, answer, resume, layers, end) reads and changes that map in that order.
 *
 * One joined session (LiveKit's RTCEngine, in small): the signalling socket's messages applied
 * one at a time (an ICE candidate waits for its offer), the remote participants, and a
 * SubscriptionPeer per subscription the strategy asks for. What an ending means for the app
 * (connection state, `stageLeft`) is the Stage's: the session reports it through its host.
 */
import type {
  InitialLayerName,
  LayerDescription,
  ParticipantDescription,
  StageLeftReasonName,
  StageMessage,
} from '../signalling';
import { joinedOfferRequestId } from '../signalling';
import {
  RemoteStageStreamEvents,
  StageConnectionState,
  StageErrorCategory,
  StageErrorCode,
  StageEvents,
  StageLeftReason,
  StageParticipantSubscribeState,
  StageStreamLayerSelectedReason,
  StreamType,
} from './enums';
import { ivsError, stageRaisedError } from './errors';
import type { EmitStageEvent } from './events';
import type { RemoteStageStream, StageParticipantInfo } from './participant';
import type { SignalSocket } from './signal-socket';
import { inBandReady, inBandSupported } from './in-band-receiver';
import { SubscriptionPeer } from './subscription-peer';

export interface WantedMedia {
  audio: boolean;
  video: boolean;
}

export interface RemoteParticipant {
  info: StageParticipantInfo;
  description: ParticipantDescription;
  subscription: Subscription | undefined;
}

interface Subscription {
  requestId: string;
  id: string | undefined;
  peer: SubscriptionPeer | undefined;
  /** What the stage told of the video's layers before its stream was there. */
  layers?: LayerDescription[];
  selected?: Extract<StageMessage, { type: 'layerSelected' }>;
  adaptation?: Extract<StageMessage, { type: 'videoAdaptation' }>;
  /** The layer preference last sent to the stage (null: the stage chooses). */
  preferredRid: string | null;
  /**
   * On standby (decision 0112): the strategy does not ask for it yet, so the app knows nothing of
   * it (no state, no streams), and the stage sends none of its media.
   */
  hidden?: boolean;
  /** Made on standby, and the stage not yet told to start its media (`resume`). */
  stageHolds?: boolean;
  /** What it gets, for a subscription on standby (which the strategy may later ask for). */
  media?: WantedMedia;
  /** Its answer is on its way to the stage. */
  answered?: boolean;
}

export interface SessionOwner {
  emit: EmitStageEvent;
  /** What the strategy asks of a participant; undefined leaves its subscription as it is. */
  wantedMedia(participant: RemoteParticipant): WantedMedia | undefined;
  /** The layer the strategy prefers for a video stream (a label); null: the stage chooses. */
  preferredLayer(participant: StageParticipantInfo, stream: RemoteStageStream): string | null;
  /** The layer the strategy asks a new subscription's video to start on, if it says. */
  initialLayer(participant: StageParticipantInfo): InitialLayerName | undefined;
  /** Whether the strategy asks for a subscription's in-band messages (decision 0094). */
  inBandMessaging(participant: StageParticipantInfo): boolean;
  /**
   * What of a participant to keep on standby while the strategy asks for none of it (the
   * `standby` configuration, decision 0112); undefined: nothing.
   */
  standbyMedia(participant: RemoteParticipant): WantedMedia | undefined;
  /** The session ended by itself: the state it leaves the Stage in, and `stageLeft`'s reason. */
  ended(session: Session, state: StageConnectionState, reason?: StageLeftReason): void;
}

/**
 * How long a subscription that asks for in-band messages waits for the SDK's worker to start
 * (decision 0094): it is normally running long before a join; on a loaded machine a join once
 * came first, and its player never had the flight data.
 */
const IN_BAND_WORKER_WAIT_MS = 1_000;
const { SUBSCRIBED, NOT_SUBSCRIBED, ATTEMPTING_SUBSCRIBE, ERRORED } =
  StageParticipantSubscribeState;

/** A subscription asked for and not yet offered (`how`: on standby, or an offer it takes). */
const newSubscription = (requestId: string, how: Partial<Subscription>): Subscription => ({
  requestId,
  id: undefined,
  peer: undefined,
  preferredRid: null,
  ...how,
});

export class Session {
  closed = false;
  private readonly participants = new Map<string, RemoteParticipant>();
  private queue = Promise.resolve();
  private requests = 0;

  constructor(
    private readonly socket: SignalSocket,
    readonly local: StageParticipantInfo,
    private readonly host: SessionOwner,
    /** The token's ICE servers (TURN), for every subscription's peer connection. */
    private readonly iceServers: RTCIceServer[],
  ) {
    socket.onMessage = (message) => {
      this.queue = this.queue
        .then(() => this.dispatch(message))
        .catch((error: unknown) => console.error('[IVSBroadcastClient] local stage', error));
    };
    socket.onClose = () => this.lost();
  }

  /**
   * A participant there or arriving. `offered`: the media of it the stage offers along with
   * `joined` (the join asked for them); the strategy's first answer takes that offer when it
   * wants the same, with no initial layer of its own, instead of subscribing.
   */
  add(description: ParticipantDescription, offered?: WantedMedia & { standby?: boolean }): void {
    if (this.participants.has(description.id)) return;
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
    this.participants.set(description.id, participant);
    this.host.emit(StageEvents.STAGE_PARTICIPANT_JOINED, participant.info);
    this.applyStrategy(participant, offered);
  }

  /** Asks the strategy again about every participant. */
  refresh(): void {
    if (this.closed) return;
    for (const participant of this.participants.values()) {
      this.applyStrategy(participant);
      this.applyLayerPreference(participant);
    }
  }

  /** Leaves on purpose: tells the stage, then ends as IVS's leave does. */
  leave(): void {
    this.socket.send({ type: 'leave' });
    this.end('leave');
  }

  /** Closes everything and reports every participant gone: local first, as IVS does. */
  private end(reason: string): void {
    const participants = [...this.participants.values()];
    this.close(reason);
    this.host.emit(StageEvents.STAGE_PARTICIPANT_LEFT, this.local);
    for (const participant of participants) this.participantGone(participant);
  }

  /** The socket or a peer connection was lost (not a leave). */
  private lost(): void {
    if (this.closed) return;
    this.close('connection lost');
    this.host.ended(this, StageConnectionState.DISCONNECTED);
  }

  /** Closes the socket and every peer connection, once; reports nothing. */
  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const participant of this.participants.values()) participant.subscription?.peer?.close();
    this.socket.close(reason);
  }

  private async dispatch(message: StageMessage): Promise<void> {
    if (this.closed) return;
    switch (message.type) {
      case 'participantJoined':
        return this.add(message.participant);
      case 'participantLeft': {
        const participant = this.participants.get(message.participantId);
        if (!participant) return;
        this.participants.delete(message.participantId);
        return this.participantGone(participant);
      }
      case 'offer':
        return this.answer(message);
      case 'candidate': {
        const peer = this.subscription(message.subscriptionId)?.peer;
        if (peer && message.candidate) await peer.addCandidate(message.candidate);
        return;
      }
      case 'subscriptionEnded': {
        const participant = this.participantOf(message.subscriptionId);
        // One on standby is dropped quietly: a later ask subscribes anew.
        if (participant?.subscription?.hidden) return this.dropStandby(participant);
        // The stage cut the media of a live subscription: for the app, the connection is lost.
        if (participant) this.lost();
        return;
      }
      case 'layers':
      case 'layerSelected':
      case 'videoAdaptation':
        return this.layerNews(message);
      case 'error':
        return this.stageError(message);
      case 'left':
        return this.leftByStage(message.reason);
      case 'joined':
        return;
    }
  }

  /** The stage ended the session on purpose (e.g. the token joined again elsewhere). */
  private leftByStage(reason: StageLeftReasonName): void {
    this.end('left by stage');
    const known = Object.values(StageLeftReason).find((value) => value === reason);
    this.host.ended(this, StageConnectionState.DISCONNECTED, known ?? StageLeftReason.UNKNOWN);
  }

  private stageError(message: Extract<StageMessage, { type: 'error' }>): void {
    const category =
      message.category === 'JOIN_ERROR'
        ? StageErrorCategory.JOIN_ERROR
        : message.category === 'PUBLISH_ERROR'
          ? StageErrorCategory.PUBLISH_ERROR
          : StageErrorCategory.SUBSCRIBE_ERROR;
    const participant =
      message.requestId &&
      [...this.participants.values()].find(
        (candidate) => candidate.subscription?.requestId === message.requestId,
      );
    // The answer to a subscription no longer wanted: its participant left before the stage read
    // the request (a publisher change mid-join). Nothing failed that the app could act on.
    if (message.requestId && !participant) return;
    // A layer preference for a subscription already ended (its publisher left as the preference
    // went): moot, not a failure.
    if (message.subscriptionId && !this.subscription(message.subscriptionId)) return;
    // A subscription on standby refused: dropped quietly (the app asked for nothing yet).
    if (participant && participant.subscription?.hidden) return this.dropStandby(participant);
    if (participant) {
      // The stage refused the subscription; the strategy is not asked again until a refresh.
      participant.subscription?.peer?.close();
      participant.subscription = undefined;
      this.subscribeState(participant, ERRORED);
    }
    this.host.emit(StageEvents.ERROR, stageRaisedError(message.code, category, message.message));
    if (message.fatal) {
      this.close('fatal error');
      this.host.ended(this, StageConnectionState.ERRORED);
    }
  }

  /**
   * Subscribes, unsubscribes or leaves as the strategy says. With `offered`, a subscription the
   * strategy wants takes the offer the stage sends after `joined` when it is the same one (the
   * same media, the stage's starting layer); otherwise that offer is refused on arrival
   * (`answer` unsubscribes an offer nobody asked for).
   */
  private applyStrategy(
    participant: RemoteParticipant,
    offered?: WantedMedia & { standby?: boolean },
  ): void {
    const media = this.host.wantedMedia(participant);
    if (!media) return;
    const standing = participant.subscription?.hidden ? participant.subscription : undefined;
    if (!media.audio && !media.video) {
      if (participant.subscription && !standing) {
        this.endSubscription(participant);
        this.subscribeState(participant, NOT_SUBSCRIBED);
      }
      if (!participant.subscription) this.standBy(participant, offered);
      return;
    }
    if (standing) {
      const same = standing.media?.audio === media.audio && standing.media?.video === media.video;
      if (same && this.host.initialLayer(participant.info) === undefined) {
        return this.show(participant, standing);
      }
      this.dropStandby(participant, true);
    }
    if (participant.subscription) return;
    const initialLayer = this.host.initialLayer(participant.info);
    const takesOffer = initialLayer === undefined && this.offers(participant, media, offered);
    const requestId = this.requestIdFor(participant, takesOffer);
    // An offer on standby taken as it is: its media start as it comes (`resume`).
    participant.subscription = newSubscription(
      requestId,
      takesOffer && offered?.standby ? { stageHolds: true } : {},
    );
    this.subscribeState(participant, ATTEMPTING_SUBSCRIBE);
    if (takesOffer) return;
    this.socket.send({
      type: 'subscribe',
      requestId,
      participantId: participant.info.id,
      media,
      ...(initialLayer ? { initialLayer } : {}),
    });
  }

  /**
   * Keeps the participant's `standbyMedia` on standby (decision 0112): the stage's offer sent with
   * `joined` when it is the same, else a `subscribe` on standby. The app is told nothing.
   */
  private standBy(participant: RemoteParticipant, offered?: WantedMedia & { standby?: boolean }) {
    const media = this.host.standbyMedia(participant);
    if (!media || (!media.audio && !media.video)) return;
    const takesOffer = offered?.standby === true && this.offers(participant, media, offered);
    const requestId = this.requestIdFor(participant, takesOffer);
    participant.subscription = newSubscription(requestId, {
      hidden: true,
      stageHolds: true,
      media,
    });
    if (takesOffer) return;
    this.socket.send({
      type: 'subscribe',
      requestId,
      participantId: participant.info.id,
      media,
      standby: true,
    });
  }

  /** Whether the offer sent with `joined` is of `media`, of what the participant publishes. */
  private offers(participant: RemoteParticipant, media: WantedMedia, offered?: WantedMedia) {
    const published = participant.description.media;
    return (
      offered !== undefined &&
      media.audio === (offered.audio && published.includes('audio')) &&
      media.video === (offered.video && published.includes('video'))
    );
  }

  /** A new subscription's request id: the offer's sent with `joined` when it takes that one. */
  private requestIdFor(participant: RemoteParticipant, takesOffer: boolean): string {
    this.requests += 1;
    return takesOffer ? joinedOfferRequestId(participant.info.id) : `subscribe-${this.requests}`;
  }

  /**
   * The strategy asks for a subscription on standby: the stage starts its media (at once, or as
   * its offer comes), and the app hears of it as of any other once it is answered.
   */
  private show(participant: RemoteParticipant, subscription: Subscription): void {
    subscription.hidden = false;
    this.subscribeState(participant, ATTEMPTING_SUBSCRIBE);
    this.resume(subscription);
    if (!subscription.answered) return;
    subscription.peer?.announce();
    if (subscription.peer?.isConnected) this.subscribeState(participant, SUBSCRIBED);
  }

  /** Tells the stage to start the media of a subscription made on standby, once. */
  private resume(subscription: Subscription): void {
    if (!subscription.stageHolds || subscription.id === undefined) return;
    subscription.stageHolds = false;
    this.socket.send({ type: 'resume', subscriptionId: subscription.id });
  }

  /** Ends a subscription on standby without a word to the app; `tell`: the stage too. */
  private dropStandby(participant: RemoteParticipant, tell = false): void {
    const subscription = participant.subscription;
    if (!subscription?.hidden) return;
    participant.subscription = undefined;
    subscription.peer?.close();
    if (tell && subscription.id) {
      this.socket.send({ type: 'unsubscribe', subscriptionId: subscription.id });
    }
  }

  private async answer(offer: Extract<StageMessage, { type: 'offer' }>): Promise<void> {
    const { subscriptionId } = offer;
    const participant = this.participants.get(offer.participantId);
    const subscription = participant?.subscription;
    if (!participant || !subscription || subscription.requestId !== offer.requestId) {
      this.socket.send({ type: 'unsubscribe', subscriptionId });
      return;
    }
    subscription.id = subscriptionId;
    // Shown before its offer came (a click as the page's first sign of life): its media start
    // now, the key frame encoded while the answer is made, as any join's.
    if (!subscription.hidden) this.resume(subscription);
    // The peer reports nothing once closed, and it is closed whenever it stops being current.
    const peer = new SubscriptionPeer(
      // The offer's servers carry a credential made for this connection; the token's may have
      // expired by now (decision 0063).
      new RTCPeerConnection({ iceServers: offer.iceServers ?? this.iceServers }),
      participant.info,
      {
        candidate: (candidate) =>
          this.socket.send({ type: 'candidate', subscriptionId, candidate }),
        tracks: (streams) => this.streamsAdded(participant, subscription, streams),
        connected: () => {
          if (!subscription.hidden) this.subscribeState(participant, SUBSCRIBED);
        },
        lost: () => this.lost(),
      },
    );
    subscription.peer = peer;
    // In-band messages, when the strategy asks and this browser can read them: the stage then
    // appends its VP8 trailers to this subscription's frames (decision 0094).
    const inBand =
      this.host.inBandMessaging(participant.info) &&
      (inBandSupported() || (await inBandReady(IN_BAND_WORKER_WAIT_MS)));
    if (this.closed || subscription.peer !== peer) return;
    if (inBand) {
      peer.readInBandMessages((message) =>
        this.host.emit(StageEvents.STAGE_STREAM_SEI_MESSAGE_RECEIVED, participant.info, message),
      );
    }
    try {
      const sdp = await peer.answer(offer.sdp);
      if (sdp !== undefined && !this.closed) {
        this.socket.send({
          type: 'answer',
          subscriptionId,
          sdp,
          ...(inBand ? { inBandMessaging: true } : {}),
        });
        subscription.answered = true;
        if (subscription.hidden) return;
        // The app hears of the streams once the answer is on its way (its work would delay it).
        peer.announce();
      }
    } catch (error) {
      if (this.closed) return;
      this.endSubscription(participant);
      this.host.emit(
        StageEvents.ERROR,
        ivsError(StageErrorCode.FAILED, StageErrorCategory.SUBSCRIBE_ERROR, String(error)),
      );
    }
  }

  /**
   * New streams: their layer events told as the Stage's too (as IVS does), the app told of them,
   * then what the stage said of the layers before they came, and the strategy's preference.
   */
  private streamsAdded(
    participant: RemoteParticipant,
    subscription: Subscription,
    streams: RemoteStageStream[],
  ): void {
    const info = participant.info;
    for (const stream of streams) {
      stream.on(RemoteStageStreamEvents.LAYERS_CHANGED, (layers) => {
        this.host.emit(StageEvents.STAGE_STREAM_LAYERS_CHANGED, info, stream, layers);
        this.applyLayerPreference(participant);
      });
      stream.on(RemoteStageStreamEvents.LAYER_SELECTED, (layer, reason) =>
        this.host.emit(StageEvents.STAGE_STREAM_LAYER_SELECTED, info, stream, layer, reason),
      );
      stream.on(RemoteStageStreamEvents.ADAPTION_CHANGED, (adapting) =>
        this.host.emit(StageEvents.STAGE_STREAM_ADAPTION_CHANGED, info, stream, adapting),
      );
    }
    this.host.emit(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, info, streams);
    const video = streams.find((stream) => stream.streamType === StreamType.VIDEO);
    if (subscription.layers) video?.layersArrived(subscription.layers);
    if (subscription.selected) this.select(video, subscription.selected);
    const adaptation = subscription.adaptation;
    if (adaptation) video?.adaptationArrived(adaptation.videoPaused, adaptation.estimate);
    this.applyLayerPreference(participant);
  }

  /** The stage's news of a subscription's video layers and adaptation, given to its stream. */
  private layerNews(
    message: Extract<StageMessage, { type: 'layers' | 'layerSelected' | 'videoAdaptation' }>,
  ): void {
    const subscription = this.subscription(message.subscriptionId);
    if (!subscription) return;
    const video = subscription.peer?.streams.find((each) => each.streamType === StreamType.VIDEO);
    if (message.type === 'layers') {
      subscription.layers = message.layers;
      video?.layersArrived(message.layers);
    } else if (message.type === 'videoAdaptation') {
      subscription.adaptation = message;
      video?.adaptationArrived(message.videoPaused, message.estimate);
    } else {
      subscription.selected = message;
      this.select(video, message);
    }
  }

  private select(
    video: RemoteStageStream | undefined,
    message: Extract<StageMessage, { type: 'layerSelected' }>,
  ): void {
    const reason =
      message.reason === 'unavailable'
        ? StageStreamLayerSelectedReason.UNAVAILABLE
        : StageStreamLayerSelectedReason.SELECTED;
    video?.layerSelected(message.rid, message.adapting, reason);
  }

  /**
   * Tells the stage the layer the strategy prefers for the participant's video, when that
   * changes. A label the stream does not list (yet) waits for the next LAYERS_CHANGED.
   */
  private applyLayerPreference(participant: RemoteParticipant): void {
    const subscription = participant.subscription;
    const video = subscription?.peer?.streams.find((each) => each.streamType === StreamType.VIDEO);
    if (!subscription?.id || subscription.hidden || !video || this.closed) return;
    const rid = this.host.preferredLayer(participant.info, video);
    if (rid === subscription.preferredRid) return;
    if (rid !== null && !video.getLayers().some((layer) => layer.label === rid)) return;
    subscription.preferredRid = rid;
    this.socket.send({ type: 'preferLayer', subscriptionId: subscription.id, rid });
  }

  private subscription(subscriptionId: string): Subscription | undefined {
    return this.participantOf(subscriptionId)?.subscription;
  }

  private participantOf(subscriptionId: string): RemoteParticipant | undefined {
    for (const participant of this.participants.values()) {
      if (participant.subscription?.id === subscriptionId) return participant;
    }
    return undefined;
  }

  /** Closes a participant's subscription, tells the stage, and reports its streams removed. */
  private endSubscription(participant: RemoteParticipant): void {
    const subscription = participant.subscription;
    if (!subscription) return;
    participant.subscription = undefined;
    subscription.peer?.close();
    if (subscription.id) this.socket.send({ type: 'unsubscribe', subscriptionId: subscription.id });
    this.streamsRemoved(participant, subscription);
  }

  private participantGone(participant: RemoteParticipant): void {
    const subscription = participant.subscription;
    participant.subscription = undefined;
    subscription?.peer?.close();
    this.streamsRemoved(participant, subscription);
    this.host.emit(StageEvents.STAGE_PARTICIPANT_LEFT, participant.info);
  }

  private streamsRemoved(participant: RemoteParticipant, subscription?: Subscription): void {
    // The app never heard of the streams of one on standby.
    const streams = (!subscription?.hidden && subscription?.peer?.streams) || [];
    if (streams.length > 0) {
      this.host.emit(StageEvents.STAGE_PARTICIPANT_STREAMS_REMOVED, participant.info, streams);
    }
  }

  private subscribeState(
    participant: RemoteParticipant,
    state: StageParticipantSubscribeState,
  ): void {
    this.host.emit(StageEvents.STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED, participant.info, state);
  }
}
