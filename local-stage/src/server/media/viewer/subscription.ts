/**
 * Kept as one file: its timers (answer, handshake, key frame, disconnect grace) all end with the
 * one peer connection it owns; its pieces (forwarding, the layer choice and switch, the viewer's
 * adaptation, its layer reports) are files of their own beside it.
 *
 * One viewer's subscription to one publisher: a send-only werift RTCPeerConnection that forwards
 * the publisher's packets untouched, in the codecs it sends (publisher.ts,
 * docs/decisions/0054-cameras-publish-over-whip.md). The stage offers (it knows what it sends) with
 * its host candidates in the offer, controls ICE and nominates the first pair that works (and starts
 * DTLS the moment it does: ice-nomination.ts), and is the DTLS server; the viewer answers and
 * starts the DTLS handshake once nominated.
 *
 * Video starts at a key frame: the subscription asks the publisher for one when its offer goes out,
 * holds it until the connection is up, then forwards from it; it asks again until one comes. The
 * viewer's PLIs and FIRs ask the publisher too (coalesced there, one a second for all viewers);
 * its NACKs are answered from a
 * per-track packet cache, and its sender reports carry the publisher's capture clock
 * (forwarding.ts).
 *
 * A simulcast publisher's video comes in layers: the viewer gets one at a time, the highest its
 * bandwidth estimate carries or none (paused), moved at key frames with its numbering continuous
 * (layer-switch.ts; the choice, layer-choice.ts; the estimate and probe, viewer-adaptation.ts), and its PLIs go to that
 * layer.
 */
import type { IceServer } from '@tailcam/protocol/participant-token';
import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RtcpPayloadSpecificFeedback,
  useAbsSendTime,
  useSdesMid,
  type RTCRtpSender,
  type RtcpPacket,
  type RtpPacket,
} from 'werift';
import { ConnectionWatch } from '../transport/connection-watch';
import { keepEarlyDtls } from '../transport/early-dtls';
import { connectOnNomination } from '../transport/ice-nomination';
import {
  AUDIO_CACHE_PACKETS,
  TrackForwarder,
  VIDEO_CACHE_PACKETS,
  withOutgoingLoss,
  type ForwardingCounts,
} from './forwarding';
import { LayerReports } from './layer-reports';
import {
  arrivingLayers,
  isHigher,
  type VideoLayer,
  type VideoLayers,
} from '../publisher/video-layers';
import { StartPacer, startFigures } from './start-pacer';
import { LayerSwitch } from './layer-switch';
import { ViewerAdaptation } from './viewer-adaptation';
import type { FeedListener, Publisher, VideoDelivery } from '../publisher/publisher';
import {
  NO_FREE_PORT,
  NoFreePortError,
  announcesCandidate,
  type PeerNetworkPlan,
} from '../transport/peer-network';
import { asDtlsServer, withSessionIceLite } from '../sdp/werift-sdp';
import {
  STAGE_ERROR_CODES,
  type IceCandidateMessage,
  type InitialLayerName,
  type StageMessage,
} from '../../../signalling';
import { silentLogger, type StageLogger } from '../../../stage-log';

const ANSWER_TIMEOUT_MS = 15_000;
/**
 * A socket viewer from which no ICE check has come this long after its answer cannot reach the
 * stage at all: its checks go to addresses it cannot reach (a stage behind 1:1 NAT announcing its
 * private address) or are dropped (UDP blocked and no TURN). The viewer is told, so its player
 * shows an error rather than a black video without end; the log names the settings. A viewer whose
 * checks arrive is never ended by this, however slowly its connection comes up on a busy machine:
 * its first check comes within a second of its answer even at load 10.
 */
export const MEDIA_CONNECT_TIMEOUT_MS = 10_000;
/** What the viewer's player shows (docs/product.md#player-states), after `[SUBSCRIBE_ERROR] `. */
export const MEDIA_UNREACHABLE_MESSAGE =
  'The live video could not reach this browser: the network between you and the stage let none of it through (a firewall, or a stage address that cannot be reached from here)';
const MEDIA_UNREACHABLE_LOG =
  "had no ICE check from its viewer within 10 s of the viewer's answer, so no media path exists between them: " +
  'a stage behind 1:1 NAT (a cloud VM) must announce its public address (STAGE_ANNOUNCED_ADDRESSES), ' +
  'and viewers whose UDP is blocked need TURN (TURN_URLS, TURN_SECRET)';
const DISCONNECTED_GRACE_MS = 5_000;
/**
 * ICE up and DTLS still not done after this long: the handshake is stuck, and ending the
 * subscription lets the viewer's player reconnect. A safety net: werift's DTLS server stuck about
 * one first join in 40 under load until the early-DTLS replay moved to a microtask (decision
 * 0026). A working handshake takes 30–60 ms here.
 */
export const DTLS_HANDSHAKE_TIMEOUT_MS = 3_000;
const KEY_FRAME_RETRY_MS = 300;
const KEY_FRAME_RETRIES = 10;
const KEY_FRAME_SLOW_RETRY_MS = 2_000;
/**
 * A layer heard from within this long counts for a start on the lowest layer (longer than
 * `LAYER_SILENT_MS`: a loaded encoder leaves its lowest layer silent half a second now and then,
 * and a stage process stalled a second or two by its machine hears its layers again one by one;
 * 2 s once let a fresh clone's viewer open on the top layer). The switch waits for the chosen
 * layer's key frame, so a lowest layer that has really stopped costs a start this long at most.
 */
const LOWEST_HEARD_MS = 10_000;
/** A key frame and the few frames after it (360p: about 10 packets a key frame, 3 a frame). */
const MAX_HELD_PACKETS = 120;

export interface SubscriptionOptions {
  id: string;
  publisher: Publisher;
  /** What the viewer gets (already limited to what the publisher sends). */
  media: { audio: boolean; video: boolean };
  /** The publisher's participant id, as the viewer knows it. */
  publisherId: string;
  send: (message: StageMessage) => void;
  onClosed: (subscription: Subscription) => void;
  /**
   * A WHEP subscription (sessions/whep-session.ts): the viewer offers and the stage answers, as an ICE lite agent
   * with its candidates in the answer. Else the stage offers over the signalling socket.
   */
  answerer?: boolean;
  /** An answerer not connected this long after its answer is ended (ANSWER_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** Its connection came up, the first time. */
  onConnected?: (subscription: Subscription) => void;
  /** Logs what the stage operator should know (a stuck handshake). */
  log?: StageLogger;
  /** The addresses and ports the stage announces (peer-network.ts). */
  network: PeerNetworkPlan;
  /** The layer a simulcast publisher's video starts on (default: the highest arriving). */
  initialLayer?: InitialLayerName;
  /** False for the recorder's: not counted as a viewer (FeedListener.demands). */
  demands?: boolean;
  /** False for the thumbnail process's and the recorder's (FeedListener.person). */
  person?: boolean;
  /**
   * A media worker on the stage's own host (the recorder, the thumbnail process): it gets the
   * highest layer arriving, never one chosen from a bandwidth estimate. Its link is loopback, and
   * what it keeps should be as sharp as the camera.
   */
  topLayer?: boolean;
  /** TURN servers with a fresh credential for the viewer, sent with the offer (decision 0063). */
  iceServers?: () => IceServer[];
  /**
   * Its VP8 frames carry the stage's in-band trailer from the start (decision 0094): the
   * recorder's WHEP session, which keeps the messages with the frames (decision 0096). A socket
   * viewer's SDK asks in its answer instead.
   */
  inBandMessaging?: boolean;
  /**
   * On standby (decision 0112): connected like any other, and its camera kept drawing, but none
   * of the publisher's media is forwarded (nor a key frame asked for, nor a person counted) until
   * `resume()`.
   */
  standby?: boolean;
}

export class Subscription implements FeedListener {
  readonly id: string;
  readonly publisherId: string;
  readonly media: { audio: boolean; video: boolean };
  readonly demands: boolean;
  private readonly isPerson: boolean;
  private readonly publisher: Publisher;
  private readonly iceServers: (() => IceServer[]) | undefined;
  private readonly send: (message: StageMessage) => void;
  private readonly onClosed: (subscription: Subscription) => void;
  private readonly onConnected: (subscription: Subscription) => void;
  private readonly connectTimeoutMs: number;
  private readonly peer: RTCPeerConnection;
  private readonly videoSender: RTCRtpSender | undefined;
  private readonly audioSender: RTCRtpSender | undefined;
  private readonly videoForwarder: TrackForwarder | undefined;
  private readonly audioForwarder: TrackForwarder | undefined;
  /** The layer of the publisher's video the viewer gets. */
  private readonly layerSwitch: LayerSwitch;
  private readonly startLowest: boolean;
  private readonly layerReports: LayerReports;
  /** The viewer's bandwidth estimate, the layer chosen from it, the probe, the pause. */
  readonly adaptation: ViewerAdaptation;
  private lossPercentValue = 0;
  /** Takes the loss fault off the transports again, while it is on. */
  private lossOff: (() => void)[] | undefined;
  /** RTP packets the loss fault dropped. */
  droppedPackets = 0;
  /** Whether the viewer's SDK reads in-band messages (its answer said). */
  private inBandMessaging = false;
  private closed = false;
  private connected = false;
  /** An ICE check of the viewer's has reached the stage: a media path exists, if slow. */
  private checkedByViewer = false;
  /** Video flows once a key frame has opened it; until then the latest key frame is held. */
  private videoOpen = false;
  private held: RtpPacket[] | undefined;
  /** On standby: nothing forwarded until `resume`. */
  private standby: boolean;
  /** When `resume` came, for the log line of its first frame. */
  private resumedAt: number | undefined;
  /** The start of the video, paced (start-pacer.ts). */
  private readonly startPacer = new StartPacer(
    (packet) => this.forward(packet),
    () => this.layerSwitch.forwarding?.bitrate(performance.now()) ?? 0,
  );
  /** Video frames sent on to the viewer (marker bits of the packets forwarded). */
  private videoFramesForwarded = 0;
  /** The viewer's PLIs and FIRs: each one a picture it could not decode. */
  private keyFramesAsked = 0;
  /** Frames of the viewer's layer (or the one it moves to) that came while its video was open. */
  private videoFramesOffered = 0;
  /** Times its video was paused for a slow link, and whether it is now (counted at packets). */
  private videoPauses = 0;
  private videoWasPaused = false;
  private keyFrameTimer: NodeJS.Timeout | undefined;
  private answerTimer: NodeJS.Timeout | undefined;
  /** The viewer's subscribe request this subscription answers (socket viewers). */
  private requestId: string | undefined;
  private readonly connection: ConnectionWatch;
  private handshakeTimer: NodeJS.Timeout | undefined;
  private readonly log: StageLogger;
  private readonly network: PeerNetworkPlan;
  /** When the subscription was asked for, and when its connection came up (performance.now). */
  readonly requestedAt = performance.now();
  connectedAt: number | undefined;

  constructor(options: SubscriptionOptions) {
    this.id = options.id;
    this.publisherId = options.publisherId;
    this.publisher = options.publisher;
    this.media = options.media;
    this.demands = options.demands ?? true;
    this.isPerson = options.person ?? true;
    this.iceServers = options.iceServers;
    this.inBandMessaging = options.inBandMessaging ?? false;
    this.standby = options.standby ?? false;
    this.send = options.send;
    this.onClosed = options.onClosed;
    this.onConnected = options.onConnected ?? (() => undefined);
    this.connectTimeoutMs = options.connectTimeoutMs ?? ANSWER_TIMEOUT_MS;
    this.log = options.log ?? silentLogger();
    this.network = options.network;
    this.startLowest = options.initialLayer === 'lowest_quality';
    this.layerReports = new LayerReports(this.id, this.send);
    const topLayer = options.topLayer ?? false;
    this.layerSwitch = new LayerSwitch({
      // The viewer's own choice wins; else the layer its link carries (viewer-adaptation.ts), or
      // the highest arriving for a worker on the stage's host.
      target: () =>
        this.preferredLayer() ??
        (topLayer
          ? topArriving(this.publisher.layers, performance.now())
          : this.adaptation.target()),
      askKeyFrame: (layer) => this.publisher.requestKeyFrame(false, layer),
      // A layer the viewer chose (and arriving), on a link that carries the layer it gets: its
      // picture goes on until the chosen layer's key frame. Else the move is the link's.
      moveDownAtOnce: () => {
        const current = this.layerSwitch.current;
        return (
          this.adaptation.preferredRid === null ||
          !this.preferredLayer() ||
          current === undefined ||
          !this.adaptation.carries(current)
        );
      },
    });
    this.adaptation = new ViewerAdaptation({
      layers: () => this.publisher.layers,
      current: () => this.layerSwitch.current,
      pad: (bytes) => this.videoForwarder?.pad(bytes) ?? 0,
      paused: () => this.layerSwitch.paused,
      report: (videoPaused, estimate) => {
        if (this.closed) return;
        this.log.debug({ subscription: this.id, estimate, videoPaused }, 'viewer estimate');
        this.send({
          type: 'videoAdaptation',
          subscriptionId: this.id,
          videoPaused,
          estimate: estimate === undefined ? null : Math.round(estimate),
        });
      },
      videoSsrc: () => this.videoSender?.ssrc,
      sendsRemb: () => this.peer.remoteDescription?.sdp.includes('goog-remb') === true,
      roundTripMs: () => this.videoForwarder?.roundTrip,
      onLayer: (layer, estimate) =>
        this.log.info(
          {
            subscription: this.id,
            layer: layer?.rid ?? null,
            estimate: estimate ?? null,
            loss: this.adaptation.loss?.fraction ?? null,
            lossBound: this.adaptation.lossBound() ?? null,
            lineLoss: this.adaptation.lineLoss() ?? null,
            roundTripMs: this.videoForwarder?.roundTrip ?? null,
            retransmitted: this.videoForwarder?.counts.retransmitted,
            probePackets: this.videoForwarder?.counts.probePackets,
          },
          layer || !this.layerSwitch.paused ? 'viewer layer' : 'viewer video paused',
        ),
    });
    this.connection = new ConnectionWatch({
      graceMs: DISCONNECTED_GRACE_MS,
      connected: () => this.connectionUp(),
      failed: () => this.close('connection-failed', true),
      lost: () => this.close('connection-lost', true),
    });
    this.peer = new RTCPeerConnection({
      ...viewerPeerConfig(options.publisher),
      ...options.network.config,
      iceLite: options.answerer ?? false,
      // Called for each of the viewer's valid binding requests; true lets werift answer it.
      iceFilterStunResponse: () => {
        this.checkedByViewer = true;
        return true;
      },
    });
    if (this.media.video) {
      const transceiver = this.peer.addTransceiver('video', { direction: 'sendonly' });
      // One stream for audio and video (a=msid): the viewer syncs them as one, and with RTX's
      // second SSRC libwebrtc refuses a section that names no track.
      transceiver.sender.streamId = this.id;
      this.videoSender = transceiver.sender;
      this.videoForwarder = new TrackForwarder({
        sender: transceiver.sender,
        transceiver,
        clock: this.layerSwitch,
        cachePackets: VIDEO_CACHE_PACKETS,
        onRetransmitted: (bytes) => this.adaptation.retransmitted(bytes),
      });
      // The viewer lost a picture: the publisher sends a key frame for everyone.
      this.videoSender.onPictureLossIndication.subscribe(() => this.viewerAsksForKeyFrame());
    }
    if (this.media.audio) {
      const transceiver = this.peer.addTransceiver('audio', { direction: 'sendonly' });
      transceiver.sender.streamId = this.id;
      this.audioSender = transceiver.sender;
      this.audioForwarder = new TrackForwarder({
        sender: transceiver.sender,
        transceiver,
        clock: this.publisher.audioClock,
        cachePackets: AUDIO_CACHE_PACKETS,
      });
    }
    this.peer.connectionStateChange.subscribe(() => this.onConnectionStateChange());
    this.peer.iceConnectionStateChange.subscribe((state) => {
      if (state === 'connected' && !this.connected && !this.handshakeTimer) {
        this.handshakeTimer = setTimeout(
          () => this.onHandshakeTimeout(),
          DTLS_HANDSHAKE_TIMEOUT_MS,
        );
      }
    });
    for (const transport of this.peer.dtlsTransports) {
      // No server-reflexive candidates: werift would ask a public STUN server for each one.
      transport.iceTransport.connection.stunServer = undefined;
      keepEarlyDtls(transport);
      // Connected as soon as the nominated pair succeeds, not at werift's next 20 ms tick.
      connectOnNomination(transport);
      // werift routes a FIR by its media SSRC, which RFC 5104 sets to 0: it never reaches the sender.
      transport.onRtcp.subscribe((packet) => this.onRtcp(packet));
    }
    this.network.attach(this.peer);
  }

  /** The loss fault: this share (percent) of the RTP sent is dropped (`POST /_faults/loss`). */
  get lossPercent(): number {
    return this.lossPercentValue;
  }

  set lossPercent(percent: number) {
    this.lossPercentValue = percent;
    if (percent > 0 && this.lossOff === undefined) {
      this.lossOff = this.peer.dtlsTransports.map((transport) =>
        withOutgoingLoss(
          transport,
          () => this.lossPercentValue,
          () => (this.droppedPackets += 1),
        ),
      );
    } else if (percent === 0 && this.lossOff !== undefined) {
      for (const off of this.lossOff) off();
      this.lossOff = undefined;
    }
  }

  /** Whether its video is paused: not even the lowest layer fits the viewer's link. */
  get videoPaused(): boolean {
    return this.adaptation.videoPaused;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** The stage (aircraft) of the publisher it forwards. */
  get stageId(): string {
    return this.publisher.stageId;
  }

  /** Sends the offer and starts listening to the publisher. False if it has gone. */
  async start(requestId: string): Promise<boolean> {
    this.requestId = requestId;
    const offer = await this.peer.createOffer();
    this.network.attach(this.peer);
    await this.peer.setLocalDescription(offer);
    if (this.closed) return false;
    if (!announcesCandidate(this.peer.localDescription?.sdp)) {
      this.log.warn(`subscription ${this.id}: ${NO_FREE_PORT}`);
      this.close('no-udp-port', false);
      return false;
    }
    if (this.publisher.state === 'closed') {
      this.close('publisher-left', false);
      return false;
    }
    // After the offer is ready: an idle camera draws its first frame while the viewer answers.
    this.publisher.add(this);
    // The key frame is asked for now, not once connected: it is encoded and paced out while the
    // viewer answers and connects, and held until then. On standby, at `resume`.
    if (this.media.video && !this.standby) this.requestKeyFrame();
    const iceServers = this.iceServers?.() ?? [];
    this.send({
      type: 'offer',
      requestId,
      subscriptionId: this.id,
      participantId: this.publisherId,
      sdp: asDtlsServer(this.peer.localDescription?.sdp ?? offer.sdp),
      ...(iceServers.length > 0 ? { iceServers } : {}),
    });
    this.answerTimer = setTimeout(() => this.close('answer-timeout', true), ANSWER_TIMEOUT_MS);
    return true;
  }

  /**
   * The viewer shows the standby subscription now: the publisher's media from its next key frame,
   * asked for at once. Does nothing when it is not on standby, or the publisher has gone.
   */
  resume(): void {
    if (!this.standby || this.closed) return;
    this.standby = false;
    this.resumedAt = performance.now();
    if (this.publisher.state === 'closed') return;
    // Added again, the publisher hears that a person now watches (its recording starts).
    this.publisher.add(this);
    if (!this.media.video) return;
    // Connected already (the usual case): asked as a connected join asks, until it comes.
    if (this.connected) this.askForKeyFrame(KEY_FRAME_RETRIES);
    else this.requestKeyFrame();
  }

  /** A person watches through it: not a stage worker's, and not on standby. */
  get person(): boolean {
    return this.isPerson && !this.standby;
  }

  /** On standby (decision 0112): a page that may show the stream, not yet a viewer. */
  get onStandby(): boolean {
    return this.standby;
  }

  /**
   * A WHEP viewer's offer, already trimmed to what the stage sends (`readWhepOffer`, sdp/offer-sdp.ts): answers it, as
   * the DTLS server (so the viewer's ClientHello opens the handshake, as with socket viewers), and
   * starts listening to the publisher. Undefined when the publisher has gone meanwhile.
   */
  async acceptOffer(offer: string): Promise<string | undefined> {
    await this.peer.setRemoteDescription({ type: 'offer', sdp: offer });
    for (const transport of this.peer.dtlsTransports) transport.role = 'server';
    this.network.attach(this.peer);
    await this.peer.setLocalDescription(await this.peer.createAnswer());
    if (this.closed) return undefined;
    if (!announcesCandidate(this.peer.localDescription?.sdp)) {
      this.log.warn(`subscription ${this.id}: ${NO_FREE_PORT}`);
      this.close('no-udp-port', false);
      throw new NoFreePortError();
    }
    if (this.publisher.state === 'closed') {
      this.close('publisher-left', false);
      return undefined;
    }
    this.publisher.add(this);
    if (this.media.video) this.requestKeyFrame();
    // Not connected by then: the viewer never reached the stage (nothing half-open is kept).
    this.answerTimer = setTimeout(() => {
      if (!this.connected) this.close('connect-timeout', false);
    }, this.connectTimeoutMs);
    return withSessionIceLite(this.peer.localDescription?.sdp ?? '');
  }

  /**
   * The viewer's answer. `inBandMessaging`: its SDK reads in-band messages, so its VP8 frames get
   * the stage's trailer (decision 0094).
   */
  async answer(sdp: string, inBandMessaging = false): Promise<void> {
    if (this.closed) return;
    this.inBandMessaging = inBandMessaging;
    clearTimeout(this.answerTimer);
    this.answerTimer = setTimeout(() => this.mediaUnreachable(), MEDIA_CONNECT_TIMEOUT_MS);
    await this.peer.setRemoteDescription({ type: 'answer', sdp });
  }

  /** Answered, and not one check from the viewer since: tells it why and ends the subscription. */
  private mediaUnreachable(): void {
    if (this.closed || this.connected || this.checkedByViewer) return;
    this.log.warn(`subscription ${this.id} ${MEDIA_UNREACHABLE_LOG}`);
    this.send({
      type: 'error',
      code: STAGE_ERROR_CODES.TIMEOUT,
      category: 'SUBSCRIBE_ERROR',
      message: MEDIA_UNREACHABLE_MESSAGE,
      fatal: false,
      requestId: this.requestId,
    });
    this.close('connect-timeout', false);
  }

  /**
   * The viewer's candidates. A browser's host candidates are mDNS names (.local), which the stage
   * does not look up: the viewer's own checks reach the stage's candidates and become
   * peer-reflexive pairs, which is enough on one machine.
   */
  async addCandidate(candidate: IceCandidateMessage | null): Promise<void> {
    if (this.closed || candidate === null || candidate.candidate === '') return;
    if (/\.local\s/.test(candidate.candidate)) return;
    await this.peer.addIceCandidate(candidate).catch(() => undefined);
  }

  /**
   * The viewer's preferred layer (a rid of the publisher's; null: the stage chooses), moved to at
   * its next key frame. An error message when the publisher has no such layer (nothing changes).
   */
  preferLayer(rid: string | null): string | undefined {
    const rids = this.publisher.layers.all.map((layer) => layer.rid);
    if (rid !== null && !rids.includes(rid)) {
      const known = rids.filter((each) => each !== null);
      return `No layer '${rid}' in this video (${known.length > 0 ? `its layers: ${known.join(', ')}` : 'it has one encoding'})`;
    }
    this.adaptation.preferredRid = rid;
    this.layerReports.preferenceChanged();
    return undefined;
  }

  /**
   * The layer the viewer asked for, while it arrives (else the stage chooses: the viewer is told
   * 'unavailable'); or, asked to start lowest, the lowest arriving until the video opens.
   */
  private preferredLayer(): VideoLayer | undefined {
    const now = performance.now();
    const preferredRid = this.adaptation.preferredRid;
    if (preferredRid !== null) return this.publisher.layers.preferred(preferredRid, now);
    // Until its first frame is whole: a key frame of the highest layer, asked for with the others,
    // can come in the middle of the lowest one's, and a move up then opened on 640x360.
    if (!this.startLowest || this.videoFramesForwarded > 0) return undefined;
    // The lowest layer heard from lately, not only the lowest arriving this instant: an encoder on
    // a loaded machine leaves its lowest layer silent for half a second now and then, and the
    // viewer asked to start low all the same.
    let lowest: VideoLayer | undefined;
    for (const layer of this.publisher.layers.all) {
      const heard = layer.arriving(now, LOWEST_HEARD_MS);
      if (heard && (lowest === undefined || isHigher(lowest, layer, now))) lowest = layer;
    }
    return lowest;
  }

  onVideoPacket(
    packet: RtpPacket,
    keyFrameStart: boolean,
    layer: VideoLayer,
    inBand?: Uint8Array,
  ): void {
    if (!this.videoSender || this.standby) return;
    if (inBand && this.inBandMessaging) packet.payload = Buffer.concat([packet.payload, inBand]);
    const now = performance.now();
    const switches = this.layerSwitch.switches;
    const accepted = this.layerSwitch.accept(packet, layer, keyFrameStart, now);
    // Another layer's key frame: what the viewer lost of the layer before is not worth sending
    // again (this key frame replaces it), and on a congested link it would delay the key frame.
    if (accepted && this.layerSwitch.switches !== switches) {
      this.videoForwarder?.retransmitFrom(packet.header.sequenceNumber);
    }
    if (this.videoOpen) {
      this.layerReports.check(
        now,
        this.publisher.layers,
        this.layerSwitch.current,
        this.adaptation.preferredRid,
      );
    }
    // Moving to another layer: asked again until its key frame comes (a PLI may be lost, and
    // KeyFrameRequests sends one again only once the last is `pendingMs` old).
    const wanted = this.layerSwitch.wanted;
    if (wanted !== undefined && wanted !== this.layerSwitch.current && this.videoOpen) {
      this.publisher.requestKeyFrame(false, wanted);
    }
    // Counted once a frame (its last packet): a pause begins at a frame's first packet.
    if (packet.header.marker && this.videoOpen) {
      if (layer === this.layerSwitch.forwarding) this.videoFramesOffered += 1;
      const paused = this.layerSwitch.paused;
      if (paused && !this.videoWasPaused) this.videoPauses += 1;
      this.videoWasPaused = paused;
    }
    if (!accepted) return;
    if (this.videoOpen) {
      if (!this.startPacer.take(packet)) this.forward(packet);
      return;
    }
    // Not open yet: hold on to the latest key frame and what follows, until the connection is up.
    if (keyFrameStart) this.held = [packet];
    else if (this.held) this.held.push(packet);
    if (this.held && this.held.length > MAX_HELD_PACKETS) this.held = undefined;
    if (this.connected) this.openVideo();
  }

  /** Sends the held key frame (and the frames after it, paced) and forwards from then on. */
  private openVideo(): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    this.videoOpen = true;
    this.adaptation.start();
    clearTimeout(this.keyFrameTimer);
    // Its first frame at once, what follows for a second paced (decision 0102).
    this.startPacer.start(held);
    // What the start had to send: its key frame and the frames held since (start-pacer.ts).
    this.log.info(
      {
        subscription: this.id,
        layer: this.layerSwitch.forwarding?.rid ?? null,
        ...startFigures(held),
        sinceOfferMs: Math.round(performance.now() - this.requestedAt),
        ...(this.resumedAt === undefined
          ? {}
          : { sinceResumeMs: Math.round(performance.now() - this.resumedAt) }),
      },
      'viewer video opened',
    );
  }

  private forward(packet: RtpPacket): void {
    this.videoForwarder?.forward(packet);
    if (packet.header.marker) this.videoFramesForwarded += 1;
    this.adaptation.forwarded(packet.payload.length);
  }

  onAudioPacket(packet: RtpPacket): void {
    if (!this.connected || this.standby) return;
    this.audioForwarder?.forward(packet);
    if (this.audioForwarder) this.adaptation.audioForwarded(packet.payload.length);
  }

  /** What of the video reached the viewer so far, for `/_stats` (read without side effects). */
  get videoDelivery(): VideoDelivery {
    return {
      id: this.id,
      framesForwarded: this.videoFramesForwarded,
      framesOffered: this.videoFramesOffered,
      layer: this.layerSwitch.forwarding?.rid ?? null,
      paused: this.layerSwitch.paused,
      pauses: this.videoPauses,
    };
  }

  /** Times the viewer's video moved to another layer (at the new layer's key frame). */
  get layerSwitches(): number {
    return this.layerSwitch.switches;
  }

  /** Of the publisher's layers, highest first, the place (1 the highest) of the one forwarded. */
  get forwardedLayerRank(): number | undefined {
    const forwarding = this.layerSwitch.forwarding;
    if (forwarding === undefined) return undefined;
    const now = performance.now();
    let rank = 1;
    for (const layer of this.publisher.layers.all) {
      if (layer !== forwarding && isHigher(layer, forwarding, now)) rank += 1;
    }
    return rank;
  }

  /** What the video forwarding did (NACKs answered, packets sent again), for stats and tests. */
  get videoForwarding(): ForwardingCounts | undefined {
    return this.videoForwarder?.counts;
  }

  /** A FIR for the video sent here asks the publisher for a key frame, as a PLI does. */
  private onRtcp(packet: RtcpPacket): void {
    this.adaptation.onRtcp(packet);
    if (!(packet instanceof RtcpPayloadSpecificFeedback) || !('fir' in packet.feedback)) return;
    const ssrc = this.videoSender?.ssrc;
    if (ssrc !== undefined && packet.feedback.fir.some((entry) => entry.ssrc === ssrc)) {
      this.viewerAsksForKeyFrame();
    }
  }

  /** A key frame of the layer the viewer gets (or is moving to), from the publisher. */
  private requestKeyFrame(byViewer = false): void {
    this.publisher.requestKeyFrame(byViewer, this.layerSwitch.wanted);
  }

  /**
   * The viewer's own PLI or FIR: held to the viewers' one key frame a second once it has a
   * picture; before its first key frame it asks as its join does, at once.
   */
  private viewerAsksForKeyFrame(): void {
    if (this.standby) return;
    this.keyFramesAsked += 1;
    this.requestKeyFrame(this.videoOpen);
  }

  /**
   * Ends the subscription and releases the peer connection. `notify` tells the viewer (when the
   * stage ends it; not when the viewer asked or its socket is gone).
   */
  close(reason: string, notify: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.connected = false;
    clearTimeout(this.answerTimer);
    this.connection.stop();
    clearTimeout(this.keyFrameTimer);
    clearTimeout(this.handshakeTimer);
    this.adaptation.stop();
    this.videoForwarder?.close();
    this.audioForwarder?.close();
    this.held = undefined;
    this.startPacer.stop();
    this.publisher.remove(this);
    void this.peer.close().catch(() => undefined);
    if (notify) this.send({ type: 'subscriptionEnded', subscriptionId: this.id, reason });
    // What a join that did not play left behind: how far it came, and why it ended.
    this.log.info(
      {
        subscription: this.id,
        stageId: this.publisher.stageId,
        publisher: this.publisherId,
        reason,
        ms: Math.round(performance.now() - this.requestedAt),
        connectedMs:
          this.connectedAt === undefined ? null : Math.round(this.connectedAt - this.requestedAt),
        videoOpen: this.videoOpen,
        framesForwarded: this.videoFramesForwarded,
        // What the viewer lost and asked for again, and what it did not get: a freeze's trail.
        keyFramesAsked: this.keyFramesAsked,
        ...lossCounts(this.videoForwarder?.counts),
      },
      'subscription ended',
    );
    this.onClosed(this);
  }

  private onConnectionStateChange(): void {
    if (!this.closed) this.connection.stateChanged(this.peer.connectionState);
  }

  private connectionUp(): void {
    clearTimeout(this.handshakeTimer);
    if (this.connected) return;
    this.connected = true;
    if (this.connectedAt === undefined) {
      this.connectedAt = performance.now();
      this.onConnected(this);
    }
    if (this.media.video && !this.videoOpen && !this.standby) {
      if (this.held) this.openVideo();
      else this.askForKeyFrame(KEY_FRAME_RETRIES);
    }
  }

  /** The viewer reached the stage but the DTLS handshake never ended: start again. */
  private onHandshakeTimeout(): void {
    if (this.closed || this.connected) return;
    this.log.warn(
      `subscription ${this.id}: no DTLS after ${DTLS_HANDSHAKE_TIMEOUT_MS} ms with ICE up; ending it`,
    );
    this.close('dtls-timeout', true);
  }

  /**
   * Asks until a key frame opens the video: quickly at first, then every 2 s for good. A viewer
   * with no picture yet, so a join's request (at once), not a viewer's (one a second).
   */
  private askForKeyFrame(retries: number): void {
    this.requestKeyFrame();
    this.keyFrameTimer = setTimeout(
      () => {
        if (!this.closed && !this.videoOpen) this.askForKeyFrame(Math.max(0, retries - 1));
      },
      retries > 0 ? KEY_FRAME_RETRY_MS : KEY_FRAME_SLOW_RETRY_MS,
    );
  }
}

/**
 * A viewer's peer connection: the publisher's codecs, with its format parameters (an H.264
 * profile is announced as the publisher sends it, so the browser decodes what it gets), at the
 * payload types browsers use, with RTX for retransmissions (plain ones when the viewer declines
 * it) and PLI, FIR and NACK feedback; the media id header extension (BUNDLE), host candidates on
 * IPv4 only, all of them in the offer.
 */
const viewerPeerConfig = (publisher: Publisher) => ({
  codecs: {
    video: publisher.video
      ? [
          new RTCRtpCodecParameters({
            mimeType: publisher.video.mimeType,
            clockRate: 90_000,
            payloadType: 96,
            ...(publisher.video.parameters ? { parameters: publisher.video.parameters } : {}),
            rtcpFeedback: [
              { type: 'nack' },
              { type: 'nack', parameter: 'pli' },
              { type: 'ccm', parameter: 'fir' },
              // With the absolute send time: the viewer estimates its bandwidth and says it.
              { type: 'goog-remb' },
            ],
          }),
          new RTCRtpCodecParameters({
            mimeType: 'video/rtx',
            clockRate: 90_000,
            payloadType: 97,
            parameters: 'apt=96',
          }),
        ]
      : [],
    audio: [
      new RTCRtpCodecParameters({
        mimeType: 'audio/opus',
        clockRate: 48_000,
        channels: 2,
        payloadType: 111,
      }),
    ],
  },
  headerExtensions: { video: [useSdesMid(), useAbsSendTime()], audio: [useSdesMid()] },
  iceServers: [],
  bundlePolicy: 'max-bundle' as const,
});

/** The highest layer arriving, once the publisher's start is over (`VideoLayers.starting`). */
function topArriving(layers: VideoLayers, now: number): VideoLayer | undefined {
  return layers.starting(now) ? undefined : arrivingLayers(layers, now)[0];
}

/** A forwarded track's NACKs and what became of them, for a log line. */
function lossCounts(counts: ForwardingCounts | undefined) {
  if (counts === undefined) return {};
  const { nacks, retransmitted, notCached, overBudget, superseded } = counts;
  return { nacks, retransmitted, notCached, overBudget, superseded };
}
