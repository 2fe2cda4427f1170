/**
 * Kept as one file: it is the doors, and the socket's, WHIP's and WHEP's admissions share the
 * seats, the sessions and the shown publisher.
 *
 * The local stage: one stage per stream id (aircraft-stage.ts: its publishers, the one its viewers
 * see, the camera process's demand), whose publishers come in over WHIP, and the viewers' sessions
 * over the socket or WHEP. This class holds the doors: it admits joins (token checks, injected
 * faults, token reuse), publishers (PUBLISH tokens) and players, every door's sessions taking their
 * seats by one rule (admission.ts), and it keeps the camera process's link. Health, stats and
 * fault injection are pieces of their own (stage-health.ts, stage-stats.ts, stage-faults.ts), and
 * so is when the synthetic cameras sleep (camera-sleep.ts: every session counts as watching). The
 * sessions reach the stage only through the `ViewerSessionHost` it hands each of them.
 */
import type { IceServer } from '@tailcam/protocol/participant-token';
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { ParticipantTokenClaims } from '@tailcam/protocol/participant-token';
import { THUMBNAILS_USER_ID } from '@tailcam/protocol/thumbnails';
import { SYNTHETIC_CAMERA_USER_ID } from '../../camera-link';
import { RECORDER_USER_ID } from '@tailcam/protocol/participant-token';
import { STAGE_ERROR_CODES, type ParticipantDescription } from '../../signalling';
import type { StageStats } from '../../control';
import type { StageEventsAnswer } from '@tailcam/protocol/stage-control';
import { EndpointError } from '../media/sdp/endpoint-error';
import { readWhepOffer, readWhipOffer } from '../media/sdp/offer-sdp';
import type { SdpEndpoint } from '../media/sdp/sdp-session';
import { NoFreePortError, type PeerNetwork } from '../media/transport/peer-network';
import { Publisher, type PublisherKind } from '../media/publisher/publisher';
import { Subscription } from '../media/viewer/subscription';
import { StageMetrics } from './stage-metrics';
import {
  AdmissionControl,
  AdmissionRefused,
  STAGE_FULL,
  TOO_MANY_SESSIONS,
  type AdmissionLimits,
  type Seat,
  type SeatRequest,
} from '../sessions/admission';
import { JoinRefusedError, verifyBearerToken, verifyJoinToken } from '../sessions/join-token';
import { TokenGenerations } from '../sessions/token-generations';
import { ViewerSession, type Admission, type ViewerSessionHost } from '../sessions/viewer-session';
import { WhepSession } from '../sessions/whep-session';
import { AircraftStage, type ShownPublisher } from './aircraft-stage';
import { CameraLinkHost } from './camera-link-host';
import { CameraSleep } from './camera-sleep';
import { aircraftNow, StageEventsRing } from './events-ring';
import { StageFaults, type FaultTarget } from './stage-faults';
import { StageHealthCheck, type StageHealth } from './stage-health';
import { ConnectTimes, stageStats } from './stage-stats';
import { silentLogger, type StageLogger } from '../../stage-log';
import { publishMaxBitrate, type PublishMaxKbps } from '../media/publisher/publish-max-bitrate';

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
  log?: StageLogger;
  /** What every peer connection announces (peer-network.ts: resolved before the stage starts). */
  network: PeerNetwork;
  /** Each aircraft's publisher cap, sent as REMB (publish-max-bitrate.ts); none if unset. */
  publishMaxKbps?: PublishMaxKbps;
  /**
   * The synthetic cameras sleep after this long with nobody watching (camera-sleep.ts,
   * CAMERA_SLEEP_AFTER_MS); 0 or unset: never (tests that do not test it).
   */
  cameraSleepAfterMs?: number;
  /** TURN servers with a credential for a user, made when asked (decision 0063); none unset. */
  iceServersFor?: (userId: string) => IceServer[];
}

/**
 * How long a WHEP offer that woke the cameras waits for its aircraft's camera to come on air (a
 * new WHIP session, about 170 ms), and how long after a wake the health does not count a camera
 * still on its way back as missing.
 */
const CAMERA_WAKE_MS = 5_000;

export class LocalStage {
  private readonly options: LocalStageOptions;
  /** The accounts' token generations, as the API tells them (token-generations.ts). */
  readonly generations: TokenGenerations;
  /** Fault injection (stage-faults.ts), for the loopback-only /_faults routes and tests. */
  readonly faults: StageFaults;
  private readonly healthCheck: StageHealthCheck;
  private readonly stages = new Map<string, AircraftStage>();
  private readonly sessions = new Set<ViewerSession>();
  /** Every door's one admission rule: the seats of sessions of every kind. */
  private readonly admission: AdmissionControl;
  /** Each admitted socket session's seat (taken when admitted, before it counts as joined). */
  private readonly sessionSeats = new WeakMap<ViewerSession, Seat>();
  /** Who each session joined on standby is, for its Participant Joined once it shows a stream. */
  private readonly standbyViewers = new WeakMap<
    ViewerSession,
    { stageId: string; participantId: string; userId: string }
  >();
  private readonly subscriptions = new Set<Subscription>();
  private readonly connectTimes = new ConnectTimes();
  /** The stage's figures for Prometheus (stage-metrics.ts): `GET /_control/metrics`. */
  readonly metrics: StageMetrics;
  /** Players watching over WHEP, by session id. */
  private readonly whepSessions = new Map<string, WhepSession>();
  /** The WHIP endpoint: publishers (sdp-endpoint.ts). */
  readonly whip: SdpEndpoint = {
    name: 'whip',
    hasStage: (stageId) => this.stages.has(stageId),
    create: async (stageId, token, offer) => {
      const { publisher, answer } = await this.publish(stageId, token, offer);
      return { id: publisher.id, answer, userId: publisher.userId };
    },
    tokenHolder: (stageId, token) => this.tokenHolder(stageId, token, 'publish'),
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
    tokenHolder: (stageId, token) => this.tokenHolder(stageId, token, 'subscribe'),
    session: (stageId, id) => {
      const session = this.whepSessions.get(id);
      return session?.stageId === stageId && session.subscription.isOpen ? session : undefined;
    },
  };
  /** The camera process's link (camera-link-host.ts). */
  private readonly cameraLink: CameraLinkHost;
  /** When the synthetic cameras sleep (camera-sleep.ts). */
  private readonly cameraSleep: CameraSleep;
  /** performance.now() of the last wake, if any. */
  private wokenAt: number | undefined;
  /** WHEP offers waiting for a camera that was woken: they count as watching. */
  private waitingOffers = 0;
  /** Called with a stage id whenever its shown publisher changed. */
  private readonly shownListeners = new Set<(stageId: string) => void>();
  /**
   * Counts the changes of who is on air (health's `publishers`) and of whether a person watches
   * each: the recorder's long poll.
   */
  private onAirVersionValue = 0;
  private readonly onAirListeners = new Set<() => void>();
  /** What the sessions may ask of the stage. */
  private readonly host: ViewerSessionHost;
  /** Participant events for the API's feed (events-ring.ts, decision 0098). */
  readonly events: StageEventsRing;
  /** The publishers whose Published has been said. */
  private readonly announced = new WeakSet<Publisher>();
  private closing = false;
  readonly log: StageLogger;
  /** What its peer connections announce, and on which ports. */
  readonly network: PeerNetwork;

  constructor(options: LocalStageOptions) {
    this.options = options;
    this.log = options.log ?? silentLogger();
    this.network = options.network;
    this.admission = new AdmissionControl(options.limits);
    this.generations = new TokenGenerations({ loaded: !options.awaitTokenGenerations });
    this.events = new StageEventsRing({ run: this.generations.run });
    this.host = {
      admit: (session, token) => this.admit(session, token),
      publisherOf: (stageId, participantId) => {
        const shown = this.stages.get(stageId)?.shown;
        return shown?.participantId === participantId ? shown.publisher : undefined;
      },
      subscriptionOpened: (subscription) => this.subscriptionOpened(subscription),
      subscriptionClosed: (subscription) => this.subscriptionClosed(subscription),
      // A page on standby is a viewer once it shows a stream: its Participant Joined then.
      sessionShown: (session) => {
        const who = this.standbyViewers.get(session);
        if (who) this.events.viewerJoined(session, who);
      },
      sessionClosed: (session) => {
        this.events.viewerLeft(session);
        this.sessions.delete(session);
        this.sessionSeats.get(session)?.release();
        this.watchersChanged();
      },
      log: this.log,
      peerNetwork: this.network,
    };
    for (const stageId of options.stageIds) {
      this.stages.set(
        stageId,
        new AircraftStage(stageId, {
          sendToCameras: (message) => this.cameraLink.send(message),
          shownChanged: (leaving, joined) => this.shownChanged(stageId, leaving, joined),
          watchedChanged: () => this.onAirChanged(),
          log: this.log,
        }),
      );
    }
    this.cameraSleep = new CameraSleep({
      sleepAfterMs: options.cameraSleepAfterMs ?? 0,
      onChange: (asleep) => this.camerasSleepChanged(asleep),
    });
    this.cameraLink = new CameraLinkHost(this.stages, () => this.cameraSleep.asleep);
    this.healthCheck = new StageHealthCheck({
      stages: this.stages,
      secret: options.secret,
      syntheticCameras: options.syntheticCameras,
      generations: this.generations,
      isClosing: () => this.closing,
      camerasResting: () => this.camerasResting(),
    });
    this.metrics = new StageMetrics({ stages: this.stages, subscriptions: this.subscriptions });
    this.faults = new StageFaults({
      stages: this.stages,
      subscriptions: this.subscriptions,
      whepSessions: () => this.whepSessions.values(),
      matchSessions: (target) => this.matchSessions(target),
    });
  }

  /** Takes a new events socket; the session admits itself through `admit`. */
  accept(socket: WebSocket): ViewerSession {
    const session = new ViewerSession(socket, this.host);
    this.sessions.add(session);
    // Before the join is even read: a sleeping camera starts its session now.
    this.watchersChanged();
    return session;
  }

  private async admit(session: ViewerSession, token: string): Promise<Admission> {
    const claims = await verifyJoinToken(token, {
      secret: this.options.secret,
      stageIds: this.options.stageIds,
      generations: this.generations,
    });
    const failure = this.faults.takeJoinFailure(claims.topic);
    if (failure) throw new JoinRefusedError(failure.code, failure.message, 'fault injection');
    // Closed while its token was checked: it must not take a seat it would never give back.
    if (session.state === 'closed') {
      throw new JoinRefusedError(STAGE_ERROR_CODES.CANCELED, undefined, 'socket closed');
    }
    const seat = this.seatForJoin(session, {
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
    const shown = this.stages.get(claims.topic)?.describeShown();
    const { iceServersFor } = this.options;
    // Socket sessions are the players' (the stage's own workers come over WHEP); one on standby
    // is a viewer once it shows a stream (decision 0112).
    const who = { stageId: claims.topic, participantId: claims.jti, userId: claims.user_id };
    if (session.joinsOnStandby) this.standbyViewers.set(session, who);
    else this.events.viewerJoined(session, who);
    return {
      participantId: claims.jti,
      stageId: claims.topic,
      participants: shown ? [shown] : [],
      ...(iceServersFor ? { iceServers: () => iceServersFor(claims.user_id) } : {}),
    };
  }

  /**
   * A socket join's seat. When its account holds all its seats (or the stage all of its own), a
   * join that will show a stream takes the seat of the oldest session on standby of that account
   * (of any account), which is ended as IVS's DisconnectParticipant ends one (decision 0112):
   * pages that may show a stream never keep out one that does.
   */
  private seatForJoin(session: ViewerSession, request: SeatRequest): Seat {
    try {
      return this.takeSeat(request);
    } catch (error) {
      if (!(error instanceof JoinRefusedError) || session.joinsOnStandby) throw error;
      const accountFull = error.code === STAGE_ERROR_CODES.TOKEN_NOT_ALLOWED;
      if (!accountFull && error.code !== STAGE_ERROR_CODES.STAGE_AT_CAPACITY) throw error;
      const yielding = [...this.sessions].find(
        (other) =>
          other.onStandby &&
          other.state === 'joined' &&
          (!accountFull || this.sessionSeats.get(other)?.request.userId === request.userId),
      );
      if (!yielding) throw error;
      yielding.end('participant-disconnected');
      return this.takeSeat(request);
    }
  }

  // ---- Publishers (WHIP) and players (WHEP): sdp-endpoint.ts ----

  /** The `user_id` of a token this door would take for `stageId`, or undefined. */
  private async tokenHolder(
    stageId: string,
    token: string,
    capability: 'publish' | 'subscribe',
  ): Promise<string | undefined> {
    try {
      return (await this.admitOverHttp(stageId, token, capability)).claims.user_id;
    } catch (error) {
      if (error instanceof EndpointError) return undefined;
      throw error;
    }
  }

  /** The stage a WHIP or WHEP request names, and its token's claims: or the EndpointError. */
  private async admitOverHttp(
    stageId: string,
    token: string,
    capability: 'publish' | 'subscribe',
  ): Promise<{ entry: AircraftStage; claims: ParticipantTokenClaims }> {
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
      offeredSdp: offerSdp,
      seat,
      onKeyFrameRequested: () => {
        if (publisher.kind === 'camera') this.cameraLink.send({ type: 'key-frame', stageId });
      },
      onStateChange: (changed) => {
        entry.publisherChanged(changed);
        this.publisherEvents(changed);
      },
      log: this.log,
      connectTimeoutMs: this.admission.limits.connectTimeoutMs,
      network: this.network,
      maxBitrate: publishMaxBitrate(this.options.publishMaxKbps, stageId),
    });
    entry.publishers.set(publisher.id, publisher);
    let answer: string;
    try {
      answer = await publisher.answer();
    } catch (error) {
      publisher.close('answer-failed');
      if (error instanceof NoFreePortError) throw new EndpointError(503, STAGE_FULL);
      this.log.warn({ err: error }, `WHIP offer for ${stageId} could not be answered`);
      throw new EndpointError(400, 'The offer could not be negotiated');
    }
    this.log.info(
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
  ): Promise<{ id: string; answer: string; userId: string }> {
    const { entry, claims } = await this.admitOverHttp(stageId, token, 'subscribe');
    // The recorder records what people watch: its offer never wakes a sleeping camera.
    const recorder = claims.user_id === RECORDER_USER_ID;
    const person = !recorder && claims.user_id !== THUMBNAILS_USER_ID;
    const shown = entry.shown ?? (recorder ? undefined : await this.wakeCamera(entry));
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
      network: this.network,
      // Not connected by then: the player never reached the stage, and its seat is free again.
      connectTimeoutMs: this.admission.limits.connectTimeoutMs,
      log: this.log,
      // The recorder is not a viewer: a synthetic camera still encodes only for people.
      demands: !recorder,
      // Neither of the stage's workers is a person: the recorder records a camera only for one.
      person,
      // The stage's own workers keep the camera's sharpest picture (their link is loopback).
      topLayer: recorder || claims.user_id === THUMBNAILS_USER_ID,
      // The recorder keeps the flight data with the frames (decision 0096): its token's user id,
      // which only a holder of the stage's secret can sign, asks for the VP8 trailer. A WHEP
      // player's frames come as published.
      inBandMessaging: recorder,
      onConnected: () => seat.markConnected(),
      onClosed: (closed) => {
        this.events.viewerLeft(closed);
        this.whepSessions.delete(id);
        this.watchersChanged();
        seat.release();
        this.subscriptionClosed(closed);
      },
    });
    const session = new WhepSession(id, stageId, seat, token, offer.iceUfrag, subscription);
    this.subscriptionOpened(subscription);
    this.whepSessions.set(session.id, session);
    this.watchersChanged();
    let answer: string | undefined;
    try {
      answer = await subscription.acceptOffer(offer.sdp);
    } catch (error) {
      subscription.close('answer-failed', false);
      if (error instanceof NoFreePortError) throw new EndpointError(503, STAGE_FULL);
      this.log.warn({ err: error }, `WHEP offer for ${stageId} could not be answered`);
      throw new EndpointError(400, 'The offer could not be negotiated');
    }
    if (answer === undefined) {
      throw new EndpointError(503, `The publisher of ${stageId} left meanwhile; try again`);
    }
    if (person && subscription.isOpen) {
      this.events.viewerJoined(subscription, {
        stageId,
        participantId: claims.jti,
        userId: claims.user_id,
      });
    }
    return { id: session.id, answer, userId: claims.user_id };
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

  /**
   * The publisher the viewers of `stageId` see changed: the socket viewers are told the old one
   * left (their subscriptions to it end) and the new one joined; WHEP players of the old one are
   * ended (a player knows only its connection).
   */
  private shownChanged(
    stageId: string,
    leaving: ShownPublisher | undefined,
    joined: () => ParticipantDescription | undefined,
  ): void {
    const sessions = this.matchSessions({ stageId });
    if (leaving) {
      for (const session of sessions) session.publisherLeft(leaving.participantId);
      for (const session of [...this.whepSessions.values()]) {
        if (session.subscription.publisherId === leaving.participantId) {
          session.subscription.close('publisher-left', false);
        }
      }
    }
    const participant = joined();
    if (participant) {
      for (const session of sessions) session.send({ type: 'participantJoined', participant });
    }
    for (const listener of [...this.shownListeners]) listener(stageId);
    this.onAirChanged();
  }

  /** A publisher's Joined and Published once connected, its Unpublished and Left once closed. */
  private publisherEvents(publisher: Publisher): void {
    const who = {
      stageId: publisher.stageId,
      participantId: publisher.id,
      userId: publisher.userId,
    };
    if (publisher.state === 'connected' && !this.announced.has(publisher)) {
      this.announced.add(publisher);
      this.events.published(who);
    } else if (publisher.state === 'closed' && this.announced.has(publisher)) {
      this.announced.delete(publisher);
      this.events.unpublished(who);
    }
  }

  /** `GET /_control/events` (decision 0098): the events after `after`, and each aircraft now. */
  eventsAnswer(after: number): StageEventsAnswer {
    return {
      run: this.events.run,
      first: this.events.first,
      last: this.events.last,
      events: this.events.after(after),
      aircraft: Object.fromEntries(
        [...this.stages.values()].map((stage) => [
          stage.stageId,
          aircraftNow(stage, {
            viewers: this.events.viewerCount(stage.stageId),
            camerasAsleep:
              this.cameraSleep.asleep && this.options.syntheticCameras.includes(stage.stageId),
          }),
        ]),
      ),
    };
  }

  private onAirChanged(): void {
    this.onAirVersionValue += 1;
    for (const listener of [...this.onAirListeners]) listener();
  }

  /**
   * Changes with each change of who is on air on any aircraft (health's `publishers`), and of
   * whether a person watches it (`watchedByPerson`).
   */
  get onAirVersion(): number {
    return this.onAirVersionValue;
  }

  /**
   * Whether a person watches each aircraft's shown publisher: a viewer's subscription to its
   * video, not the thumbnail process's, not the recorder's
   * (docs/decisions/0084-recording-what-a-person-watches.md).
   */
  watchedByPerson(): Record<string, boolean> {
    return Object.fromEntries(
      [...this.stages.values()].map((stage) => [stage.stageId, stage.watchedByPerson]),
    );
  }

  /** Calls `listener` at each change of `onAirVersion`, until the returned function is called. */
  onOnAirChange(listener: () => void): () => void {
    const once = () => listener();
    this.onAirListeners.add(once);
    return () => this.onAirListeners.delete(once);
  }

  // ---- The cameras' sleep (camera-sleep.ts) ----

  /**
   * The API saw a signed-in viewer (loopback-only `POST /_control/presence`): someone may want a
   * picture soon, so the cameras wake now, before a click. Whether they were asleep.
   */
  viewerPresent(): boolean {
    const wasAsleep = this.cameraSleep.asleep;
    this.cameraSleep.wake();
    return wasAsleep;
  }

  /** Fault injection (`POST /_faults/cameras-sleep`): the cameras sleep now, unless watched. */
  sleepCamerasNow(): boolean {
    return this.cameraSleep.sleepNow();
  }

  /** Everyone watching, the recorder aside (it keeps no camera awake: decision 0074). */
  private watchersChanged(): void {
    let whepWatchers = 0;
    for (const session of this.whepSessions.values()) {
      if (session.subscription.demands) whepWatchers += 1;
    }
    this.cameraSleep.setWatchers(this.sessions.size + whepWatchers + this.waitingOffers);
  }

  private camerasSleepChanged(asleep: boolean): void {
    if (!asleep) this.wokenAt = performance.now();
    this.log.info(
      asleep ? 'cameras asleep: nobody has watched for a while' : 'cameras woken: someone watches',
    );
    this.cameraLink.send({ type: 'sleep', asleep });
  }

  /** Asleep, or woken so lately that a camera may still be on its way back. */
  private camerasResting(): boolean {
    return (
      this.cameraSleep.asleep ||
      (this.wokenAt !== undefined && performance.now() - this.wokenAt < CAMERA_WAKE_MS)
    );
  }

  /**
   * A WHEP offer found nothing on air: when the aircraft's camera sleeps (or was just woken), it
   * wakes them and waits for the camera's new session. Undefined when nothing comes on air.
   */
  private async wakeCamera(entry: AircraftStage): Promise<ShownPublisher | undefined> {
    if (!this.options.syntheticCameras.includes(entry.stageId) || !entry.cameraOnAir) return;
    const wasAsleep = this.cameraSleep.asleep;
    this.cameraSleep.wake();
    if (!wasAsleep && !this.camerasResting()) return undefined;
    this.waitingOffers += 1;
    this.watchersChanged();
    try {
      return await new Promise<ShownPublisher | undefined>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.shownListeners.delete(listener);
          resolve(entry.shown);
        };
        const listener = (stageId: string) => {
          if (stageId === entry.stageId && entry.shown) done();
        };
        const timer = setTimeout(done, CAMERA_WAKE_MS);
        this.shownListeners.add(listener);
      });
    } finally {
      this.waitingOffers -= 1;
      this.watchersChanged();
    }
  }

  /** The camera process connected its link (camera-link-host.ts). */
  acceptCameraLink(socket: WebSocket): void {
    this.cameraLink.accept(socket);
  }

  /** Tries, once at start-up, what every join needs (stage-health.ts). Never throws. */
  selfCheck(): Promise<StageHealth> {
    return this.healthCheck.selfCheck();
  }

  private subscriptionClosed(subscription: Subscription): void {
    this.subscriptions.delete(subscription);
    this.connectTimes.subscriptionClosed(subscription);
    this.metrics.subscriptionClosed(subscription);
  }

  /** Cheap (health is polled; stage-health.ts). */
  health(): StageHealth {
    return this.healthCheck.health();
  }

  stats(): StageStats {
    // The thumbnail process's sessions apart: a viewer's leave leaves none of them behind.
    const thumbnailSessions = [...this.whepSessions.values()].filter(
      (session) => session.seat.request.userId === THUMBNAILS_USER_ID,
    ).length;
    return stageStats({
      stages: this.stages.values(),
      sessions: this.sessions,
      peerConnections: this.subscriptions.size - thumbnailSessions,
      whepSessions: this.whepSessions.size - thumbnailSessions,
      thumbnailSessions,
      camerasAsleep: this.cameraSleep.asleep,
      pendingJoinFailures: this.faults.pendingJoinFailures,
      connectTimes: this.connectTimes,
    });
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

  private subscriptionOpened(subscription: Subscription): void {
    this.subscriptions.add(subscription);
    this.faults.subscriptionOpened(subscription);
  }

  /** Closes every session and publisher (process shutdown). */
  close(): void {
    this.closing = true;
    this.cameraSleep.close();
    for (const session of [...this.sessions]) session.drop();
    for (const session of [...this.whepSessions.values()]) {
      session.subscription.close('stage-closing', false);
    }
    for (const stage of this.stages.values()) stage.closePublishers('stage-closing');
    this.cameraLink.close();
  }

  private matchSessions(target: FaultTarget): ViewerSession[] {
    return [...this.sessions].filter(
      (session) =>
        session.state === 'joined' &&
        (target.participantId === undefined || session.participantId === target.participantId) &&
        (target.stageId === undefined || session.stageId === target.stageId),
    );
  }
}
