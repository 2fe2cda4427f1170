/**
 * The local stage: one stage per stream id, whose publishers come in over WHIP (publisher.ts), and
 * the viewers' sessions. Viewers see one publisher per stage: a real encoder while one publishes,
 * else the aircraft's synthetic camera (the camera process's WHIP session), each a participant of
 * its own (docs/decisions/0054-cameras-publish-over-whip.md). Admits joins (token checks,
 * injected faults, token reuse) and publishers (PUBLISH tokens), tells the camera process who
 * watches (camera-link.ts), answers the health and stats questions, and carries out the fault
 * injections. Every door's sessions take their seats by one rule (admission.ts). The sessions
 * reach the stage only through the `ViewerSessionHost` it hands each of them.
 */
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import {
  issueParticipantToken,
  type ParticipantTokenClaims,
} from '@tailcam/protocol/participant-token';
import { SYNTHETIC_CAMERA_USER_ID, type CameraLinkMessage } from '../../camera-link';
import type { ParticipantDescription, StageErrorCategoryName } from '../../signalling';
import { STAGE_ERROR_CODES } from '../../signalling';
import {
  AdmissionControl,
  AdmissionRefused,
  TOO_MANY_SESSIONS,
  type AdmissionLimits,
  type Seat,
  type SeatRequest,
} from '../sessions/admission';
import type { LossAnswer, StageStats } from '../http/control';
import { JoinRefusedError, verifyBearerToken, verifyJoinToken } from '../sessions/join-token';
import { Publisher, type PublisherKind } from '../media/publisher';
import type { SdpEndpoint } from '../http/sdp-endpoint';
import { Subscription } from '../media/subscription';
import { TokenGenerations } from '../sessions/token-generations';
import { ViewerSession, type Admission, type ViewerSessionHost } from '../sessions/viewer-session';
import { WhepSession } from '../sessions/whep-session';
import { readWhepOffer, readWhipOffer } from '../http/offer-sdp';
import { EndpointError } from '../http/endpoint-error';

export interface LocalStageOptions {
  stageIds: readonly string[];
  secret: Uint8Array;
  /** The aircraft whose synthetic camera the camera process publishes (readiness waits for them). */
  syntheticCameras: readonly string[];
  /** Who may open a session (admission.ts); its defaults where unset (tests shorten some). */
  limits?: Partial<AdmissionLimits>;
  /**
   * Whether the stage waits for the API's table of token generations (decision 0058), not ready
   * until it comes: the stage process does. Otherwise the table starts empty (tests without an API).
   */
  awaitTokenGenerations?: boolean;
  log?: (message: string, detail?: unknown) => void;
}

interface StageEntry {
  stageId: string;
  /** Every WHIP session on this stage, connecting or connected, by its id. */
  publishers: Map<string, Publisher>;
  /** The connected real encoder, if any: viewers see it. */
  encoder: Publisher | undefined;
  /** The connected synthetic camera, if any: viewers see it when no encoder publishes. */
  camera: Publisher | undefined;
  /** What viewers see now, as which participant. */
  shown: { publisher: Publisher; participantId: string } | undefined;
  /** Participants shown so far: each new one gets a new id, as a rejoin does with IVS. */
  shownCount: number;
  /** False while a fault holds the synthetic camera off air. */
  cameraOnAir: boolean;
  /** The demand last sent to the camera process. */
  demand: { video: boolean; audio: boolean };
}

export interface JoinFailure {
  stageId?: string;
  code: number;
  /** What the viewer's join error says; IVS's text for the code when absent. */
  message?: string;
}

/** Who publishes on each stage, as viewers would see it. */
export type OnAir = 'camera' | 'encoder' | 'none';

/**
 * Whether a viewer's join would be served now, and would show video
 * (`docs/decisions/0028-stage-readiness.md`): the self-check passed and every aircraft with a
 * synthetic camera has a publisher, unless a fault holds its camera off air.
 */
export type StageHealth = { publishers: Record<string, OnAir> } & (
  { ready: true } | { ready: false; reason: string }
);

export class LocalStage {
  private readonly options: LocalStageOptions;
  /** The accounts' token generations, as the API tells them (token-generations.ts). */
  readonly generations: TokenGenerations;
  private readonly stages = new Map<string, StageEntry>();
  private readonly sessions = new Set<ViewerSession>();
  /** Every door's one admission rule: the seats of sessions of every kind. */
  private readonly admission: AdmissionControl;
  /** Each admitted socket session's seat (taken when admitted, before it counts as joined). */
  private readonly sessionSeats = new WeakMap<ViewerSession, Seat>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly joinFailures: JoinFailure[] = [];
  private readonly connectTimes: number[] = [];
  /** Players watching over WHEP, by session id. */
  private readonly whepSessions = new Map<string, WhepSession>();
  /** The WHIP endpoint: publishers (sdp-endpoint.ts). */
  readonly whip: SdpEndpoint = {
    name: 'whip',
    hasStage: (stageId) => this.stages.has(stageId),
    create: async (stageId, token, offer) => {
      const { publisher, answer } = await this.publish(stageId, token, offer);
      return { id: publisher.id, answer };
    },
    session: (stageId, id) => {
      const publisher = this.stages.get(stageId)?.publishers.get(id);
      return publisher?.state === 'closed' ? undefined : publisher;
    },
  };
  /** The WHEP endpoint: players (sdp-endpoint.ts). */
  readonly whep: SdpEndpoint = {
    name: 'whep',
    hasStage: (stageId) => this.stages.has(stageId),
    create: (stageId, token, offer) => this.watch(stageId, token, offer),
    session: (stageId, id) => {
      const session = this.whepSessions.get(id);
      return session?.stageId === stageId && session.subscription.isOpen ? session : undefined;
    },
  };
  /** The camera process's link, while it is connected (camera-link.ts). */
  private cameraLink: WebSocket | undefined;
  /** What the sessions may ask of the stage. */
  private readonly host: ViewerSessionHost;
  /** The start-up self-check's finding: undefined until it ran, null when it found nothing. */
  private startupProblem: string | null | undefined;
  private closing = false;
  /** The loss fault for subscriptions yet to open (`newSubscriptions`), if any. */
  private lossForNew: { stageId?: string; percent: number } | undefined;
  readonly log: (message: string, detail?: unknown) => void;

  constructor(options: LocalStageOptions) {
    this.options = options;
    this.log = options.log ?? (() => undefined);
    this.admission = new AdmissionControl(options.limits);
    this.generations = new TokenGenerations({ loaded: !options.awaitTokenGenerations });
    this.host = {
      admit: (session, token) => this.admit(session, token),
      publisherOf: (stageId, participantId) => {
        const shown = this.stages.get(stageId)?.shown;
        return shown?.participantId === participantId ? shown.publisher : undefined;
      },
      subscriptionOpened: (subscription) => this.subscriptionOpened(subscription),
      subscriptionClosed: (subscription) => this.subscriptionClosed(subscription),
      sessionClosed: (session) => {
        this.sessions.delete(session);
        this.sessionSeats.get(session)?.release();
      },
      log: this.log,
    };
    for (const stageId of options.stageIds) {
      this.stages.set(stageId, {
        stageId,
        publishers: new Map(),
        encoder: undefined,
        camera: undefined,
        shown: undefined,
        shownCount: 0,
        cameraOnAir: true,
        demand: { video: false, audio: false },
      });
    }
  }

  /** Takes a new events socket; the session admits itself through `admit`. */
  accept(socket: WebSocket): ViewerSession {
    const session = new ViewerSession(socket, this.host);
    this.sessions.add(session);
    return session;
  }

  private async admit(session: ViewerSession, token: string): Promise<Admission> {
    const claims = await verifyJoinToken(token, {
      secret: this.options.secret,
      stageIds: this.options.stageIds,
      generations: this.generations,
    });
    const failureIndex = this.joinFailures.findIndex(
      (failure) => failure.stageId === undefined || failure.stageId === claims.topic,
    );
    if (failureIndex >= 0) {
      const [failure] = this.joinFailures.splice(failureIndex, 1);
      if (failure) {
        throw new JoinRefusedError(failure.code, failure.message, 'fault injection');
      }
    }
    // Closed while its token was checked: it must not take a seat it would never give back.
    if (session.state === 'closed') {
      throw new JoinRefusedError(STAGE_ERROR_CODES.CANCELED, undefined, 'socket closed');
    }
    const seat = this.takeSeat({
      kind: 'socket',
      stageId: claims.topic,
      userId: claims.user_id,
      tokenId: claims.jti,
    });
    this.sessionSeats.set(session, seat);
    // A token holds one connection at a time (as with IVS): the newer join wins.
    for (const other of this.sessions) {
      if (other !== session && other.state === 'joined' && other.participantId === claims.jti) {
        other.end('token-reused');
      }
    }
    const shown = this.describeShown(claims.topic);
    return {
      participantId: claims.jti,
      stageId: claims.topic,
      participants: shown ? [shown] : [],
    };
  }

  /** The participant the viewers of `stageId` see, if any publishes there. */
  private describeShown(stageId: string): ParticipantDescription | undefined {
    const shown = this.stages.get(stageId)?.shown;
    if (!shown) return undefined;
    const { publisher } = shown;
    return {
      id: shown.participantId,
      userId: publisher.kind === 'camera' ? stageId : publisher.userId,
      attributes: { kind: publisher.kind, tailNumber: stageId },
      publishing: true,
      media: publisher.media,
    };
  }

  // ---- Publishers (WHIP) and players (WHEP): sdp-endpoint.ts ----

  /** The stage a WHIP or WHEP request names, and its token's claims: or the EndpointError. */
  private async admitOverHttp(
    stageId: string,
    token: string,
    capability: 'publish' | 'subscribe',
  ): Promise<{ entry: StageEntry; claims: ParticipantTokenClaims }> {
    const entry = this.stages.get(stageId);
    if (!entry) throw new EndpointError(404, `No stage ${stageId} here`);
    if (this.closing) throw new EndpointError(503, 'The stage is shutting down');
    const claims = await verifyBearerToken(token, {
      secret: this.options.secret,
      stageId,
      capability,
      generations: this.generations,
    });
    return { entry, claims };
  }

  /**
   * A WHIP offer for `stageId` with `token`: checks, then answers. The publisher is seen by the
   * viewers once connected. Throws EndpointError for what the publisher must change.
   */
  async publish(
    stageId: string,
    token: string,
    offerSdp: string,
  ): Promise<{ publisher: Publisher; answer: string }> {
    const { entry, claims } = await this.admitOverHttp(stageId, token, 'publish');
    const kind: PublisherKind = claims.user_id === SYNTHETIC_CAMERA_USER_ID ? 'camera' : 'encoder';
    if (kind === 'camera' && !entry.cameraOnAir) {
      throw new EndpointError(409, `The camera of ${stageId} is held off air (fault injection)`);
    }
    const offer = readWhipOffer(offerSdp);
    const seat = this.takeSeat({
      kind: 'whip',
      stageId,
      userId: claims.user_id,
      tokenId: claims.jti,
    });
    const publisher = new Publisher({
      stageId,
      kind,
      userId: claims.user_id,
      tokenId: claims.jti,
      token,
      offer,
      seat,
      onKeyFrameRequested: () => {
        if (publisher.kind === 'camera') this.sendToCameras({ type: 'key-frame', stageId });
      },
      onStateChange: (changed) => this.publisherChanged(entry, changed),
      log: (message) => this.log(message),
      connectTimeoutMs: this.admission.limits.connectTimeoutMs,
    });
    entry.publishers.set(publisher.id, publisher);
    let answer: string;
    try {
      answer = await publisher.answer();
    } catch (error) {
      publisher.close('answer-failed');
      this.log(`WHIP offer for ${stageId} could not be answered`, error);
      throw new EndpointError(400, 'The offer could not be negotiated');
    }
    this.log(
      `publisher ${publisher.id} (${kind}, ${publisher.video?.mimeType ?? 'no video'}) connecting to ${stageId}`,
    );
    return { publisher, answer };
  }

  /**
   * A WHEP player's offer for `stageId` with a SUBSCRIBE token: a subscription to the publisher
   * shown there, answered over HTTP. Counted with the socket sessions against the per-account
   * and the stage's limits. Throws EndpointError for what the player must change.
   */
  private async watch(
    stageId: string,
    token: string,
    offerSdp: string,
  ): Promise<{ id: string; answer: string }> {
    const { entry, claims } = await this.admitOverHttp(stageId, token, 'subscribe');
    const shown = entry.shown;
    if (!shown)
      throw new EndpointError(503, `Nothing is on air on ${stageId} now; try again shortly`);
    const offer = readWhepOffer(offerSdp, shown.publisher);
    const seat = this.takeSeat({
      kind: 'whep',
      stageId,
      userId: claims.user_id,
      tokenId: claims.jti,
    });
    const id = randomUUID();
    const subscription = new Subscription({
      id,
      publisher: shown.publisher,
      media: offer.media,
      publisherId: shown.participantId,
      // No socket: what a socket viewer would be told, a WHEP player learns from its connection.
      send: () => undefined,
      answerer: true,
      // Not connected by then: the player never reached the stage, and its seat is free again.
      connectTimeoutMs: this.admission.limits.connectTimeoutMs,
      log: (message) => this.log(message),
      onConnected: () => seat.markConnected(),
      onClosed: (closed) => {
        this.whepSessions.delete(id);
        seat.release();
        this.subscriptionClosed(closed);
      },
    });
    const session = new WhepSession(id, stageId, seat, token, offer.iceUfrag, subscription);
    this.subscriptionOpened(subscription);
    this.whepSessions.set(session.id, session);
    let answer: string | undefined;
    try {
      answer = await subscription.acceptOffer(offer.sdp);
    } catch (error) {
      subscription.close('answer-failed', false);
      this.log(`WHEP offer for ${stageId} could not be answered`, error);
      throw new EndpointError(400, 'The offer could not be negotiated');
    }
    if (answer === undefined) {
      throw new EndpointError(503, `The publisher of ${stageId} left meanwhile; try again`);
    }
    return { id: session.id, answer };
  }

  /**
   * A seat for a session of any kind (admission.ts), or the refusal in its door's words: the
   * socket's join errors (IVS's codes), else the HTTP status and `{error}` of WHIP and WHEP.
   */
  private takeSeat(request: SeatRequest): Seat {
    try {
      return this.admission.admit(request);
    } catch (error) {
      if (!(error instanceof AdmissionRefused)) throw error;
      const full = error.reason === 'account-full';
      if (request.kind === 'socket') {
        // TOKEN_NOT_ALLOWED, not STAGE_AT_CAPACITY, for the account: the stage has room.
        throw full
          ? new JoinRefusedError(
              STAGE_ERROR_CODES.TOKEN_NOT_ALLOWED,
              TOO_MANY_SESSIONS,
              `user ${request.userId} holds the most sessions allowed`,
            )
          : new JoinRefusedError(STAGE_ERROR_CODES.STAGE_AT_CAPACITY);
      }
      throw new EndpointError(full ? 429 : 503, error.message);
    }
  }

  /** A publisher connected, closed, or gained or lost a listener. */
  private publisherChanged(entry: StageEntry, publisher: Publisher): void {
    if (publisher.state === 'connected') publisher.seat.markConnected();
    if (publisher.state === 'closed') publisher.seat.release();
    if (publisher.state === 'connected' && !this.isCurrent(entry, publisher)) {
      // The newest of a kind takes over: an encoder that reconnects after a drop is never locked
      // out by its own stale session, and a restarted camera process replaces the old one's.
      for (const other of entry.publishers.values()) {
        if (other !== publisher && other.kind === publisher.kind) other.close('replaced');
      }
      if (publisher.kind === 'encoder') entry.encoder = publisher;
      else entry.camera = publisher;
      this.log(`publisher ${publisher.id} (${publisher.kind}) on air on ${entry.stageId}`);
    }
    if (publisher.state === 'closed') {
      entry.publishers.delete(publisher.id);
      if (entry.encoder === publisher) entry.encoder = undefined;
      if (entry.camera === publisher) entry.camera = undefined;
      if (publisher.connectedAt !== undefined) {
        this.log(
          `publisher ${publisher.id} (${publisher.kind}) left ${entry.stageId}: ${publisher.endReason}`,
        );
      }
    }
    this.showCurrent(entry);
    this.updateDemand(entry);
  }

  private isCurrent(entry: StageEntry, publisher: Publisher): boolean {
    return entry.encoder === publisher || entry.camera === publisher;
  }

  /**
   * Viewers see the encoder, else the camera. A change is the old participant leaving (its
   * subscriptions end) and a new one joining: the app attaches the new participant's video.
   */
  private showCurrent(entry: StageEntry): void {
    const current = entry.encoder ?? entry.camera;
    if (entry.shown?.publisher === current) return;
    const leaving = entry.shown;
    // The new state first: ending the old subscriptions calls back here (their publisher loses
    // listeners), and must find nothing left to change.
    if (current) entry.shownCount += 1;
    const shown = current && {
      publisher: current,
      participantId: `${entry.stageId}-${current.kind}-${entry.shownCount}`,
    };
    entry.shown = shown;
    const sessions = this.matchSessions({ stageId: entry.stageId });
    if (leaving) {
      for (const session of sessions) session.publisherLeft(leaving.participantId);
      for (const session of [...this.whepSessions.values()]) {
        if (session.subscription.publisherId === leaving.participantId) {
          session.subscription.close('publisher-left', false);
        }
      }
    }
    const participant = shown && this.describeShown(entry.stageId);
    if (participant && entry.shown === shown) {
      for (const session of sessions) session.send({ type: 'participantJoined', participant });
    }
  }

  /** Tells the camera process when its camera's viewers come and go. */
  private updateDemand(entry: StageEntry): void {
    const camera = entry.camera;
    const demand = {
      video: (camera?.videoListenerCount ?? 0) > 0,
      audio: (camera?.audioListenerCount ?? 0) > 0,
    };
    if (demand.video === entry.demand.video && demand.audio === entry.demand.audio) return;
    entry.demand = demand;
    this.sendToCameras({ type: 'demand', stageId: entry.stageId, ...demand });
  }

  // ---- The camera process's link (camera-link.ts; http-server.ts checks who opens it) ----

  /** The camera process connected its link: the newest link is the one. */
  acceptCameraLink(socket: WebSocket): void {
    const previous = this.cameraLink;
    this.cameraLink = socket;
    previous?.close(1000, 'replaced');
    for (const entry of this.stages.values()) {
      if (!entry.cameraOnAir)
        this.send(socket, { type: 'on-air', stageId: entry.stageId, onAir: false });
      this.send(socket, { type: 'demand', stageId: entry.stageId, ...entry.demand });
    }
    socket.on('close', () => {
      if (this.cameraLink !== socket) return;
      this.cameraLink = undefined;
      // The camera process is gone (crashed, or restarting): its sessions end now, rather than
      // when their peers time out, so that viewers see the streams removed at once.
      for (const entry of this.stages.values()) {
        for (const publisher of entry.publishers.values()) {
          if (publisher.kind === 'camera') publisher.close('camera-process-gone');
        }
      }
    });
  }

  private sendToCameras(message: CameraLinkMessage): void {
    if (this.cameraLink) this.send(this.cameraLink, message);
  }

  private send(socket: WebSocket, message: CameraLinkMessage): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  }

  /**
   * Tries, once at start-up, what every join needs: a participant token signed with the secret
   * passes the joins' own check. Never throws: what it finds is what `health()` reports. (The
   * cameras are another process; health waits for their publishers.)
   */
  async selfCheck(): Promise<StageHealth> {
    const tokenProblem = await this.checkTokens();
    this.startupProblem = tokenProblem ?? null;
    return this.health();
  }

  private subscriptionClosed(subscription: Subscription): void {
    this.subscriptions.delete(subscription);
    if (subscription.connectedAt !== undefined) {
      this.connectTimes.push(subscription.connectedAt - subscription.requestedAt);
      if (this.connectTimes.length > 20) this.connectTimes.shift();
    }
  }

  /** Cheap (health is polled): the self-check's finding, then what can change while running. */
  health(): StageHealth {
    const publishers = Object.fromEntries(
      [...this.stages.values()].map((entry) => [
        entry.stageId,
        entry.shown?.publisher.kind ?? ('none' as const),
      ]),
    );
    const reason = this.notReadyReason();
    return reason === undefined
      ? { ready: true, publishers }
      : { ready: false, reason, publishers };
  }

  private notReadyReason(): string | undefined {
    if (this.closing) return 'shutting down';
    if (this.startupProblem === undefined) return 'starting';
    if (this.startupProblem !== null) return this.startupProblem;
    if (!this.generations.loaded) return "waiting for the accounts' token generations from the API";
    const waiting = this.options.syntheticCameras.find((stageId) => {
      const entry = this.stages.get(stageId);
      return entry !== undefined && entry.cameraOnAir && entry.shown === undefined;
    });
    if (waiting) return `no camera publishes ${waiting} yet`;
    return undefined;
  }

  /** Signs a token as the API does and verifies it as a join does: the secret works both ways. */
  private async checkTokens(): Promise<string | undefined> {
    const { secret, stageIds } = this.options;
    const stageId = stageIds[0];
    if (stageId === undefined) return 'no stage to serve';
    try {
      const token = await issueParticipantToken({
        secret,
        participantId: 'self-check',
        stageId,
        userId: 'self-check',
        attributes: {},
        capabilities: { publish: false, subscribe: true },
        stageBaseUrl: 'http://127.0.0.1/stage',
        ttlSeconds: 60,
      });
      await verifyJoinToken(token, { secret, stageIds, generations: this.generations });
      return undefined;
    } catch (error) {
      const detail =
        error instanceof JoinRefusedError ? error.details || error.message : messageOf(error);
      return `participant tokens cannot be verified: ${detail}`;
    }
  }

  stats(): StageStats {
    const cpu = process.cpuUsage();
    const joined = [...this.sessions].filter((session) => session.state === 'joined');
    const stages: StageStats['stages'] = {};
    for (const entry of this.stages.values()) {
      const viewers = joined.filter((session) => session.stageId === entry.stageId);
      const shown = entry.shown;
      stages[entry.stageId] = {
        publisher: shown
          ? {
              kind: shown.publisher.kind,
              participantId: shown.participantId,
              video: shown.publisher.video?.mimeType ?? null,
              videoPackets: shown.publisher.videoPackets,
              keyFrames: shown.publisher.keyFramesSeen,
              plisSent: shown.publisher.keyFrames.sent,
              viewerKeyFrameRequests: shown.publisher.viewerKeyFrameRequests,
              viewers: shown.publisher.videoListenerCount,
            }
          : null,
        camera: {
          state: !entry.cameraOnAir
            ? 'stopped'
            : !entry.camera
              ? 'absent'
              : entry.demand.video
                ? 'live'
                : 'idle',
          viewers: entry.camera?.videoListenerCount ?? 0,
        },
        connectingPublishers: [...entry.publishers.values()].filter(
          (publisher) => publisher.state === 'connecting',
        ).length,
        audioListeners: shown?.publisher.audioListenerCount ?? 0,
        participants: viewers.length,
        peerConnections: viewers.reduce((sum, session) => sum + session.peerConnectionCount, 0),
      };
    }
    return {
      sockets: this.sessions.size,
      peerConnections: this.subscriptions.size,
      stages,
      participants: joined.map((session) => ({
        participantId: session.participantId ?? '',
        stageId: session.stageId ?? '',
        peerConnections: session.peerConnectionCount,
      })),
      whepSessions: this.whepSessions.size,
      pendingJoinFailures: this.joinFailures.length,
      recentConnectMs: this.connectTimes.map((ms) => Math.round(ms)),
      process: {
        cpuMicros: cpu.user + cpu.system,
        rssBytes: process.memoryUsage.rss(),
        uptimeMs: Math.round(process.uptime() * 1000),
      },
    };
  }

  /**
   * The API ended a user's sign-in (password changed, account disabled or removed): the tokens
   * issued before `tokenGeneration` are refused from now on, and the user's sessions end as IVS's
   * DisconnectParticipant ends them, with `participant-disconnected` (loopback-only
   * `POST /_control/end-user-sessions`).
   */
  endUserSessions(userId: string, tokenGeneration?: number): number {
    if (tokenGeneration !== undefined) this.generations.record(userId, tokenGeneration);
    const matching = [...this.sessions].filter(
      (session) =>
        session.state === 'joined' && this.sessionSeats.get(session)?.request.userId === userId,
    );
    for (const session of matching) session.end('participant-disconnected');
    const watching = [...this.whepSessions.values()].filter(
      (session) => session.seat.request.userId === userId,
    );
    for (const session of watching) session.subscription.close('participant-disconnected', false);
    return matching.length + watching.length;
  }

  // ---- Fault injection (reached only through the loopback-only /_faults routes). ----

  /** Cuts viewers' connections with no goodbye: by participant, by stage, or all. */
  drop(target: { participantId?: string; stageId?: string; peersOnly?: boolean }): number {
    const matching = this.matchSessions(target);
    for (const session of matching) {
      if (target.peersOnly) session.dropPeers();
      else session.drop();
    }
    return matching.length;
  }

  /**
   * Drops `percent` of the RTP sent on the matching subscriptions (a viewer's, a stage's, or
   * all), as a lossy link would; and counts what their video forwarding did about it.
   */
  setOutgoingLoss(target: {
    participantId?: string;
    stageId?: string;
    percent: number;
    newSubscriptions?: boolean;
  }): LossAnswer {
    if (target.newSubscriptions) {
      this.lossForNew =
        target.percent > 0 ? { stageId: target.stageId, percent: target.percent } : undefined;
    }
    const matching =
      target.participantId === undefined
        ? [...this.subscriptions].filter(
            (subscription) =>
              target.stageId === undefined || subscription.stageId === target.stageId,
          )
        : this.matchSessions(target).flatMap((session) => session.openSubscriptions);
    const answer = { subscriptions: 0, dropped: 0, nacks: 0, retransmitted: 0, notCached: 0 };
    for (const subscription of matching) {
      subscription.lossPercent = target.percent;
      answer.subscriptions += 1;
      answer.dropped += subscription.droppedPackets;
      answer.nacks += subscription.videoForwarding?.nacks ?? 0;
      answer.retransmitted += subscription.videoForwarding?.retransmitted ?? 0;
      answer.notCached += subscription.videoForwarding?.notCached ?? 0;
    }
    return answer;
  }

  private subscriptionOpened(subscription: Subscription): void {
    this.subscriptions.add(subscription);
    const loss = this.lossForNew;
    if (loss && (loss.stageId === undefined || loss.stageId === subscription.stageId)) {
      subscription.lossPercent = loss.percent;
    }
  }

  failNextJoin(failure: JoinFailure): void {
    if (this.joinFailures.length < 100) this.joinFailures.push(failure);
  }

  raiseError(target: {
    participantId?: string;
    stageId?: string;
    code: number;
    category: StageErrorCategoryName;
    message: string;
    fatal: boolean;
  }): number {
    const matching = this.matchSessions(target);
    for (const session of matching) {
      session.sendError(target.code, target.category, target.message, target.fatal);
    }
    return matching.length;
  }

  /**
   * The synthetic camera goes off air: the camera process is told not to publish it, its session
   * ends, and viewers see the next publisher (an encoder) or none.
   */
  stopCamera(stageId: string): boolean {
    const entry = this.stages.get(stageId);
    if (!entry || !entry.cameraOnAir) return false;
    entry.cameraOnAir = false;
    this.sendToCameras({ type: 'on-air', stageId, onAir: false });
    for (const publisher of entry.publishers.values()) {
      if (publisher.kind === 'camera') publisher.close('camera-stopped');
    }
    return true;
  }

  /** The synthetic camera may publish again: it comes back as a new participant. */
  startCamera(stageId: string): boolean {
    const entry = this.stages.get(stageId);
    if (!entry || entry.cameraOnAir) return false;
    entry.cameraOnAir = true;
    this.sendToCameras({ type: 'on-air', stageId, onAir: true });
    return true;
  }

  /** Like a restart of the stage: every connection is cut and every fault cleared. */
  restart(): number {
    const dropped = this.drop({});
    for (const session of [...this.whepSessions.values()]) {
      session.subscription.close('stage-restart', false);
    }
    this.joinFailures.length = 0;
    for (const entry of this.stages.values()) this.startCamera(entry.stageId);
    return dropped;
  }

  /** Closes every session and publisher (process shutdown). */
  close(): void {
    this.closing = true;
    for (const session of [...this.sessions]) session.drop();
    for (const session of [...this.whepSessions.values()]) {
      session.subscription.close('stage-closing', false);
    }
    for (const entry of this.stages.values()) {
      for (const publisher of [...entry.publishers.values()]) publisher.close('stage-closing');
    }
    this.cameraLink?.close(1001, 'stage closing');
  }

  private matchSessions(target: { participantId?: string; stageId?: string }): ViewerSession[] {
    return [...this.sessions].filter(
      (session) =>
        session.state === 'joined' &&
        (target.participantId === undefined || session.participantId === target.participantId) &&
        (target.stageId === undefined || session.stageId === target.stageId),
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
