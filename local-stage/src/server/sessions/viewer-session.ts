/**
 * One participant's events socket: join, then subscriptions to the stage's publishers. Messages
 * are handled one at a time, in order. Closing the socket (or losing it) releases every peer
 * connection of the session. What the session needs of its stage comes in as a `ViewerSessionHost`, so
 * the session knows nothing of the stage that made it.
 */
import type { IceServer } from '@tailcam/protocol/participant-token';
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import {
  CLOSE_CODES,
  STAGE_ERROR_CODES,
  type ClientMessage,
  type InitialLayerName,
  type ParticipantDescription,
  type StageErrorCategoryName,
  type StageLeftReasonName,
  type StageMessage,
  joinedOfferPublishers,
  joinedOfferRequestId,
  MAX_SUBSCRIPTIONS,
} from '../../signalling';
import { JoinRefusedError } from './join-token';
import type { Publisher } from '../media/publisher/publisher';
import { parseClientMessage } from './signalling-schema';
import { Subscription } from '../media/viewer/subscription';
import type { PeerNetworkPlan } from '../media/transport/peer-network';
import type { StageLogger } from '../../stage-log';

const JOIN_TIMEOUT_MS = 10_000;
const MAX_QUEUED_MESSAGES = 64;

export type SessionState = 'awaiting-join' | 'joined' | 'closed';

/** A join the stage let in: who the viewer is on which stage, and who is there already. */
export interface Admission {
  participantId: string;
  stageId: string;
  participants: ParticipantDescription[];
  /** TURN servers with a credential made now for the admitted user (none without TURN). */
  iceServers?: () => IceServer[];
}

/** The stage, as one of its sessions sees it. */
export interface ViewerSessionHost {
  /** Checks the token and admits the session; throws JoinRefusedError when it may not join. */
  admit(session: ViewerSession, token: string): Promise<Admission>;
  /** The publisher the viewers of a stage know by `participantId`, while it is on air. */
  publisherOf(stageId: string, participantId: string): Publisher | undefined;
  subscriptionOpened(subscription: Subscription): void;
  subscriptionClosed(subscription: Subscription): void;
  /** A session joined on standby shows a stream for the first time (decision 0112). */
  sessionShown(session: ViewerSession): void;
  sessionClosed(session: ViewerSession): void;
  log: StageLogger;
  /** The addresses and ports its peer connections announce (peer-network.ts). */
  readonly peerNetwork: PeerNetworkPlan;
}

export class ViewerSession {
  participantId: string | undefined;
  stageId: string | undefined;
  private iceServers: (() => IceServer[]) | undefined;
  private stateValue: SessionState = 'awaiting-join';
  private readonly subscriptions = new Map<string, Subscription>();
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private readonly joinTimer: NodeJS.Timeout;
  /** Joined with its offers on standby (decision 0112). */
  private joinedOnStandby = false;
  /** Has shown a stream since (a `resume`, or a subscription not on standby). */
  private shown = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly stage: ViewerSessionHost,
  ) {
    this.joinTimer = setTimeout(
      () => this.refuse(new JoinRefusedError(STAGE_ERROR_CODES.TIMEOUT, undefined, 'No join')),
      JOIN_TIMEOUT_MS,
    );
    socket.on('message', (data, isBinary) => {
      if (isBinary) return this.protocolError();
      const message = parseClientMessage(data.toString());
      if (!message) return this.protocolError();
      if (this.queued >= MAX_QUEUED_MESSAGES) return this.protocolError();
      this.queued += 1;
      this.queue = this.queue
        .then(() => this.handle(message))
        .catch((error: unknown) => this.stage.log.warn({ err: error }, 'session error'))
        .finally(() => {
          this.queued -= 1;
        });
    });
    socket.on('close', () => this.release());
    socket.on('error', () => this.release());
  }

  get state(): SessionState {
    return this.stateValue;
  }

  /** Its join asked for its offers on standby: a page that may show the stream. */
  get joinsOnStandby(): boolean {
    return this.joinedOnStandby;
  }

  /**
   * Joined on standby, showing nothing yet, and holding subscriptions all on standby: its seat
   * yields to a viewer's (local-stage.ts). One with no subscription (its aircraft off air) may be
   * a player waiting for the picture, so it holds its seat as any session does.
   */
  get onStandby(): boolean {
    if (!this.joinedOnStandby || this.shown || this.subscriptions.size === 0) return false;
    return [...this.subscriptions.values()].every((subscription) => subscription.onStandby);
  }

  /** The session shows a stream for the first time: the stage hears of a viewer now. */
  private showing(): void {
    if (this.shown || !this.joinedOnStandby) return;
    this.shown = true;
    this.stage.sessionShown(this);
  }

  get peerConnectionCount(): number {
    return this.subscriptions.size;
  }

  /** The session's subscriptions (for the loss fault). */
  get openSubscriptions(): Subscription[] {
    return [...this.subscriptions.values()];
  }

  send(message: StageMessage): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }

  /** Sends a stage error; a fatal one also ends the session. */
  sendError(code: number, category: StageErrorCategoryName, message: string, fatal: boolean) {
    this.send({ type: 'error', code, category, message, fatal });
    if (fatal) this.closeSocket(CLOSE_CODES.normal, 'stage error');
  }

  /** The stage ends the session on purpose (IVS's StageLeftReason). */
  end(reason: StageLeftReasonName): void {
    this.send({ type: 'left', reason });
    this.closeSocket(CLOSE_CODES.normal, reason);
  }

  /** Fault injection: the connection is lost, with no goodbye (socket and peers cut). */
  drop(): void {
    this.release();
    this.socket.terminate();
  }

  /** Fault injection: only the peer connections are cut; the viewer is told they ended. */
  dropPeers(): void {
    for (const subscription of [...this.subscriptions.values()])
      subscription.close('dropped', true);
  }

  /** A publisher left the stage: end the subscriptions to it. */
  publisherLeft(publisherId: string): void {
    for (const subscription of [...this.subscriptions.values()]) {
      if (subscription.publisherId === publisherId) subscription.close('publisher-left', false);
    }
    this.send({ type: 'participantLeft', participantId: publisherId });
  }

  private async handle(message: ClientMessage | { invalid: string }): Promise<void> {
    if (this.stateValue === 'closed') return;
    if ('invalid' in message) {
      if (this.stateValue !== 'joined') return this.protocolError();
      return this.refusePreference(message.invalid);
    }
    if (message.type === 'join') {
      if (this.stateValue !== 'awaiting-join') return this.protocolError();
      return this.join(message.token, message.offers);
    }
    if (this.stateValue !== 'joined') return this.protocolError();
    switch (message.type) {
      case 'subscribe':
        if (!message.standby) this.showing();
        return this.subscribe(
          message.requestId,
          message.participantId,
          message.media,
          message.initialLayer,
          message.standby === true,
        );
      case 'resume': {
        const subscription = this.subscriptions.get(message.subscriptionId);
        if (!subscription)
          return this.refusePreference('No such subscription', message.subscriptionId);
        subscription.resume();
        return this.showing();
      }
      case 'preferLayer': {
        const subscription = this.subscriptions.get(message.subscriptionId);
        if (!subscription) {
          return this.refusePreference('No such subscription', message.subscriptionId);
        }
        const refused = subscription.preferLayer(message.rid);
        if (refused) this.refusePreference(refused, message.subscriptionId);
        return;
      }
      case 'answer':
        await this.subscriptions
          .get(message.subscriptionId)
          ?.answer(message.sdp, message.inBandMessaging === true);
        return;
      case 'candidate':
        await this.subscriptions.get(message.subscriptionId)?.addCandidate(message.candidate);
        return;
      case 'unsubscribe':
        this.subscriptions.get(message.subscriptionId)?.close('unsubscribed', false);
        return;
      case 'leave':
        this.closeSocket(CLOSE_CODES.normal, 'left');
        return;
    }
  }

  /**
   * Admits the session; with `offers`, also offers a subscription to these media of every
   * publisher there, in this turn of the queue (the viewer's answer comes after its offer).
   */
  private async join(
    token: string,
    offers: { audio: boolean; video: boolean; standby?: true } | undefined,
  ): Promise<void> {
    clearTimeout(this.joinTimer);
    this.joinedOnStandby = offers?.standby === true;
    try {
      const admitted = await this.stage.admit(this, token);
      if (this.stateValue === 'closed') return;
      this.participantId = admitted.participantId;
      this.stageId = admitted.stageId;
      this.iceServers = admitted.iceServers;
      this.stateValue = 'joined';
      this.send({
        type: 'joined',
        protocol: 1,
        participantId: admitted.participantId,
        stageId: admitted.stageId,
        participants: admitted.participants,
      });
      if (!offers?.audio && !offers?.video) return;
      for (const publisher of joinedOfferPublishers(admitted.participants)) {
        const requestId = joinedOfferRequestId(publisher.id);
        await this.subscribe(requestId, publisher.id, offers, undefined, offers.standby === true);
      }
    } catch (error) {
      if (error instanceof JoinRefusedError) return this.refuse(error);
      throw error;
    }
  }

  private async subscribe(
    requestId: string,
    publisherId: string,
    asked: { audio: boolean; video: boolean },
    initialLayer?: InitialLayerName,
    standby = false,
  ): Promise<void> {
    const publisher = this.stageId ? this.stage.publisherOf(this.stageId, publisherId) : undefined;
    const refuse = (code: number, message: string) =>
      this.send({
        type: 'error',
        code,
        category: 'SUBSCRIBE_ERROR',
        message,
        fatal: false,
        requestId,
      });
    if (!publisher) return refuse(STAGE_ERROR_CODES.FAILED, 'No such publisher on this stage');
    // What the viewer asks for, of what the publisher sends.
    const media = {
      audio: asked.audio && publisher.audio !== undefined,
      video: asked.video && publisher.video !== undefined,
    };
    if (!media.audio && !media.video) {
      const asking = asked.audio || asked.video;
      return refuse(
        STAGE_ERROR_CODES.FAILED,
        asking ? 'The publisher sends none of the media asked for' : 'Nothing asked for',
      );
    }
    if (this.subscriptions.size >= MAX_SUBSCRIPTIONS) {
      return refuse(STAGE_ERROR_CODES.STAGE_AT_CAPACITY, 'Too many subscriptions');
    }
    const subscription = new Subscription({
      id: randomUUID(),
      publisher,
      media,
      publisherId,
      send: (message) => this.send(message),
      log: this.stage.log,
      network: this.stage.peerNetwork,
      ...(this.iceServers ? { iceServers: this.iceServers } : {}),
      ...(initialLayer ? { initialLayer } : {}),
      ...(standby ? { standby } : {}),
      onClosed: (closed) => {
        this.subscriptions.delete(closed.id);
        this.stage.subscriptionClosed(closed);
      },
    });
    this.subscriptions.set(subscription.id, subscription);
    this.stage.subscriptionOpened(subscription);
    const started = await subscription.start(requestId);
    if (!started && this.stateValue !== 'closed') {
      refuse(STAGE_ERROR_CODES.FAILED, 'The publisher is not publishing');
    }
  }

  private refuse(error: JoinRefusedError): void {
    this.send({
      type: 'error',
      code: error.code,
      category: 'JOIN_ERROR',
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      fatal: true,
    });
    this.closeSocket(CLOSE_CODES.joinRefused, 'join refused');
  }

  /**
   * A layer preference (or a `resume`) the stage cannot follow: said so, naming the subscription
   * (one that just ended, its publisher gone, is no error of the viewer's: the SDK drops it), and
   * nothing else changes.
   */
  private refusePreference(message: string, subscriptionId?: string): void {
    this.send({
      type: 'error',
      code: STAGE_ERROR_CODES.FAILED,
      category: 'SUBSCRIBE_ERROR',
      message,
      fatal: false,
      ...(subscriptionId === undefined ? {} : { subscriptionId }),
    });
  }

  private protocolError(): void {
    this.closeSocket(CLOSE_CODES.protocolError, 'protocol error');
  }

  private closeSocket(code: number, reason: string): void {
    this.release();
    this.socket.close(code, reason);
  }

  /** Releases every peer connection; idempotent. */
  private release(): void {
    if (this.stateValue === 'closed') return;
    this.stateValue = 'closed';
    clearTimeout(this.joinTimer);
    for (const subscription of [...this.subscriptions.values()]) {
      subscription.close('session-closed', false);
    }
    this.stage.sessionClosed(this);
  }
}
