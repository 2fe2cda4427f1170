/**
 * Kept as one file: the session's peer connection, its timers and its RTCP begin and end together;
 * its pieces (congestion feedback, NACK and key frame requests, capture clocks, video layers) are
 * files of their own beside it.
 *
 * One WHIP publisher's session (RFC 9725): a receive-only werift peer connection whose RTP goes
 * to the subscriptions listening, which forward it to the viewers untouched
 * (docs/decisions/0054-cameras-publish-over-whip.md). The same for a real encoder and for the
 * camera process's synthetic cameras; which of them viewers see is the stage's choice.
 *
 * The stage answers as an ICE lite agent with its host candidates in the answer, so a publisher's
 * trickled candidates (TCP, IPv6 link-local: whatever its machine has) are never needed: its own
 * checks reach the stage. A session that is not connected within `CONNECT_TIMEOUT_MS` is ended.
 *
 * Viewers' PLIs and FIRs and new viewers ask for a key frame (`requestKeyFrame`): one PLI to the
 * publisher serves every viewer that asks while it is pending (key-frame-requests.ts). The
 * publisher's sender reports give each track's capture clock, which the viewers' SRs carry.
 *
 * Its video is one layer, or one per simulcast encoding (`layers`, video-layers.ts): each with its
 * own SSRC, key frame requests and capture clock (docs/decisions/0067-simulcast-in.md).
 */
import type { InBandMessage } from '../../../codecs/in-band';
import { randomUUID } from 'node:crypto';
import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RtcpSrPacket,
  useSdesMid,
  type MediaStreamTrack,
  useTransportWideCC,
  type RtcpPacket,
  type RtpPacket,
} from 'werift';
import { CaptureClock } from './capture-clock';
import { CongestionFeedback } from './congestion-feedback';
import { keepEarlyDtls } from '../transport/early-dtls';
import {
  CONNECT_TIMEOUT_MS,
  HeldToken,
  type SdpSession,
  type SessionSeat,
} from '../sdp/sdp-session';
import { ConnectionWatch } from '../transport/connection-watch';
import {
  NO_FREE_PORT,
  NoFreePortError,
  announcesCandidate,
  type PeerNetworkPlan,
} from '../transport/peer-network';
import { KeyFrameRequests } from './key-frame-requests';
import { VideoLayer, VideoLayers } from './video-layers';
import { withSessionIceLite } from '../sdp/werift-sdp';
import {
  emptyNackCounts,
  pacedNackRequests,
  type NackCounts,
  type NackRequests,
} from './nack-requests';
import { simulcastHeaderExtensions } from './simulcast-receive';
import { roomForBursts } from '../transport/udp-mux';
import {
  withoutParameterSets,
  withoutReceiveOnlyStreams,
  type PublishedCodec,
  type WhipOffer,
} from '../sdp/offer-sdp';
import { silentLogger, type StageLogger } from '../../../stage-log';

/** Connection lost (no consent, no media) for this long: the publisher is gone. */
const DISCONNECTED_GRACE_MS = 3_000;
/** A key frame asked for and not seen within this time is asked for again. */
const KEY_FRAME_PENDING_MS = 250;
/**
 * PLIs to a publisher at most this often, however many viewers ask (key-frame-requests.ts). Not
 * less than libwebrtc's 300 ms (the camera process's encoder, and Chromium's as a WHIP publisher):
 * it ignores a PLI that comes sooner after the last one, so a viewer who joined 100–300 ms after
 * another waited for its subscription's retry, 300 ms later (docs/benchmarks.md). The
 * margin covers the PLIs' own jitter on the way.
 */
export const KEY_FRAME_MIN_INTERVAL_MS = 330;
/**
 * Viewers' own PLIs and FIRs ask the publisher for at most one key frame this often, counted from
 * the last PLI or key frame (Janus's one a second): a crowd of viewers asking again and again
 * costs every viewer bandwidth and picture quality. A join is not held to it.
 */
export const VIEWER_KEY_FRAME_INTERVAL_MS = 1_000;

/** Its seat at the stage's admission (sessions/admission.ts): the stage marks it as it connects and ends. */
export interface PublisherSeat extends SessionSeat {
  markConnected(): void;
  release(): void;
}

export type PublisherKind = 'camera' | 'encoder';
export type PublisherSessionState = 'connecting' | 'connected' | 'closed';

export interface FeedListener {
  readonly media: { audio: boolean; video: boolean };
  /**
   * False for the recorder's subscription: it is not a viewer, so it neither counts among them
   * nor makes a synthetic camera encode (docs/decisions/0072-recorder.md).
   */
  readonly demands?: boolean;
  /**
   * False for the stage's own workers (the thumbnail process, the recorder): a person's
   * subscription is what the recorder records a synthetic camera for
   * (docs/decisions/0084-recording-what-a-person-watches.md).
   */
  readonly person?: boolean;
  /** On standby (decision 0112): its camera draws for it, but it is sent nothing yet. */
  readonly onStandby?: boolean;
  /**
   * A video packet of `layer`; `keyFrameStart` when it opens a key frame of that layer. The packet
   * is the listener's. `inBand`: on a VP8 frame's last packet, the trailer carrying the
   * publisher's in-band messages for that frame, for a listener that asked for them to append
   * (decision 0094).
   */
  onVideoPacket(
    packet: RtpPacket,
    keyFrameStart: boolean,
    layer: VideoLayer,
    inBand?: Uint8Array,
  ): void;
  onAudioPacket(packet: RtpPacket): void;
  /** What of the video reached the viewer so far; a viewer's subscription counts it. */
  readonly videoDelivery?: VideoDelivery;
}

/** One viewer's video so far (`/_stats`, src/control.ts's `viewerVideo`). */
export interface VideoDelivery {
  /** The subscription's id: the same viewer from one reading to the next. */
  id: string;
  /** Frames (marker bits) sent on to the viewer. */
  framesForwarded: number;
  /**
   * Frames of the layer the viewer gets, or is moving to, that reached the stage while its video
   * was open, sent on or not: against `framesForwarded`, whether it gets its layer's full rate.
   */
  framesOffered: number;
  /** That layer's rid; null when the video has one encoding, or no layer is sent (yet). */
  layer: string | null;
  /** Its video paused for a slow link (decision 0069): no layer is sent. */
  paused: boolean;
  /** Times its video has been paused so far (a pause between two readings shows here). */
  pauses: number;
}

export interface PublisherOptions {
  stageId: string;
  kind: PublisherKind;
  /** The token's `user_id` and `jti`, for the participant the viewers see and for the logs. */
  userId: string;
  tokenId: string;
  /** The Bearer token of the POST: the session's PATCH and DELETE must carry the same. */
  token: string;
  offer: WhipOffer;
  /** The offer as the publisher wrote it: the congestion feedback it takes (werift's is trimmed). */
  offeredSdp?: string;
  /** Its seat at the stage's admission (admission.ts): its connecting slot, its PATCH count. */
  seat: PublisherSeat;
  /** A PLI has been sent (the camera process also hands its encoder a frame at once). */
  onKeyFrameRequested?: () => void;
  onStateChange: (publisher: Publisher) => void;
  log?: StageLogger;
  /** Ended when not connected within this long (CONNECT_TIMEOUT_MS; tests shorten it). */
  connectTimeoutMs?: number;
  /** The addresses and ports the stage announces (peer-network.ts). */
  network: PeerNetworkPlan;
  /** The aircraft's cap in bit/s (`STAGE_PUBLISH_MAX_KBPS`), sent as REMB; none if undefined. */
  maxBitrate?: number;
}

export class Publisher implements SdpSession {
  /** The WHIP resource's id (its Location's last segment): unguessable. */
  readonly id = randomUUID();
  readonly stageId: string;
  readonly kind: PublisherKind;
  readonly userId: string;
  readonly tokenId: string;
  readonly seat: PublisherSeat;
  readonly video: PublishedCodec | undefined;
  readonly audio: PublishedCodec | undefined;
  readonly createdAt = performance.now();
  connectedAt: number | undefined;
  /** Why it ended, once closed. */
  endReason: string | undefined;
  /** Video packets received (padding excluded), for the stats. */
  videoPackets = 0;
  /** Key frames seen opening in the publisher's video. */
  keyFramesSeen = 0;
  /** Video frames received (marker bits), by layer (its `rid`, null for a single layer). */
  readonly videoFrames = new Map<string | null, number>();
  /** Key frame requests that were a viewer's PLI or FIR (not a join's). */
  viewerKeyFrameRequests = 0;
  /** The audio's capture clock, from the publisher's sender reports (each video layer has its own). */
  readonly audioClock: CaptureClock | undefined;
  /** Its video's layers: one per simulcast encoding, else one; none without video. */
  readonly layers: VideoLayers;
  private stateValue: PublisherSessionState = 'connecting';
  private readonly peer: RTCPeerConnection;
  private readonly offer: WhipOffer;
  private readonly token: HeldToken;
  private readonly listeners = new Set<FeedListener>();
  private readonly onStateChange: (publisher: Publisher) => void;
  private readonly onKeyFrameRequested: () => void;
  private readonly log: StageLogger;
  private readonly network: PeerNetworkPlan;
  private audioSsrc: number | undefined;
  private videoReceiving = false;
  /** The stage's NACKs of its lost video packets (nack-requests.ts), once its video comes. */
  private nackRequests: NackRequests | undefined;
  private connectTimer: NodeJS.Timeout | undefined;
  private readonly connection: ConnectionWatch;
  /** Transport-wide CC feedback and REMB to the publisher (congestion-feedback.ts). */
  readonly congestion: CongestionFeedback;

  private readonly connectTimeoutMs: number;

  constructor(options: PublisherOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    this.stageId = options.stageId;
    this.kind = options.kind;
    this.userId = options.userId;
    this.tokenId = options.tokenId;
    this.seat = options.seat;
    this.offer = options.offer;
    this.token = new HeldToken(options.token);
    this.video = options.offer.video;
    this.audio = options.offer.audio;
    this.audioClock = this.audio && new CaptureClock(this.audio.clockRate);
    const video = this.video;
    const rids = options.offer.rids.length > 0 ? options.offer.rids : [null];
    this.layers = new VideoLayers(
      video
        ? rids.map(
            (rid) =>
              new VideoLayer({
                rid,
                mimeType: video.mimeType,
                keyFrames: (layer) => this.keyFrameRequests(layer),
              }),
          )
        : [],
    );
    this.onStateChange = options.onStateChange;
    this.onKeyFrameRequested = options.onKeyFrameRequested ?? (() => undefined);
    this.log = options.log ?? silentLogger();
    this.network = options.network;
    this.congestion = new CongestionFeedback({
      offerSdp: options.offeredSdp ?? options.offer.sdp,
      maxBitrate: options.maxBitrate,
      ownCamera: options.kind === 'camera',
    });
    this.connection = new ConnectionWatch({
      graceMs: DISCONNECTED_GRACE_MS,
      connected: () => this.onConnected(),
      failed: (state) => this.close(`connection-${state}`),
      lost: () => this.close('connection-lost'),
      disconnected: () =>
        this.log.warn(
          `publisher ${this.id} (${this.stageId}) disconnected; waiting ${DISCONNECTED_GRACE_MS} ms`,
        ),
    });
    this.peer = new RTCPeerConnection({
      codecs: {
        video: this.video ? [receiveCodec(this.video)] : [],
        audio: this.audio ? [receiveCodec(this.audio)] : [],
      },
      headerExtensions: {
        video: [
          useSdesMid(),
          ...simulcastHeaderExtensions(options.offer.rids),
          useTransportWideCC(),
        ],
        audio: [useSdesMid(), useTransportWideCC()],
      },
      iceServers: [],
      iceLite: true,
      ...options.network.config,
      bundlePolicy: 'max-bundle',
    });
    this.peer.onTrack.subscribe((track) => {
      if (track.kind === 'video') this.receiveVideo(track);
      else if (track.kind === 'audio')
        track.onReceiveRtp.subscribe((packet) => this.onAudio(packet));
    });
    this.peer.connectionStateChange.subscribe((state) => this.onConnectionState(state));
  }

  get state(): PublisherSessionState {
    return this.stateValue;
  }

  /** What the publisher sends, for the participant the viewers see. */
  get media(): ('audio' | 'video')[] {
    return [
      ...(this.audio ? (['audio'] as const) : []),
      ...(this.video ? (['video'] as const) : []),
    ];
  }

  /** Viewers receiving the video (audio-only listeners and the recorder are not counted). */
  get videoListenerCount(): number {
    let count = 0;
    for (const listener of this.listeners) {
      if (listener.media.video && listener.demands !== false) count += 1;
    }
    return count;
  }

  /** Whether a person (not the thumbnail process, not the recorder) receives the video. */
  get watchedByPerson(): boolean {
    for (const listener of this.listeners) {
      if (listener.media.video && listener.demands !== false && listener.person !== false)
        return true;
    }
    return false;
  }

  /** Video frames sent on to each viewer so far (the viewers that count them), for the stats. */
  get videoDeliveries(): VideoDelivery[] {
    const deliveries: VideoDelivery[] = [];
    for (const listener of this.listeners) {
      if (
        listener.media.video &&
        listener.demands !== false &&
        listener.onStandby !== true &&
        listener.videoDelivery
      )
        deliveries.push(listener.videoDelivery);
    }
    return deliveries;
  }

  get audioListenerCount(): number {
    let count = 0;
    for (const listener of this.listeners) {
      if (listener.media.audio && listener.demands !== false) count += 1;
    }
    return count;
  }

  /** Whether `token` is the one the session was created with (checked in constant time). */
  holdsToken(token: string): boolean {
    return this.token.matches(token);
  }

  /** The publisher ended its session (WHIP DELETE). */
  end(): void {
    this.close('deleted');
  }

  /** The offer's ICE username fragment (a PATCH with another asks for an ICE restart). */
  get iceUfrag(): string | undefined {
    return this.offer.iceUfrag;
  }

  /** Takes the offer and returns the answer (the WHIP POST's body). */
  async answer(): Promise<string> {
    await this.peer.setRemoteDescription({ type: 'offer', sdp: this.offer.sdp });
    for (const transport of this.peer.dtlsTransports) {
      // No server-reflexive candidates: werift would ask a public STUN server for one.
      transport.iceTransport.connection.stunServer = undefined;
      keepEarlyDtls(transport);
      transport.onRtcp.subscribe((packet) => this.onRtcp(packet));
      this.congestion.attach(transport);
    }
    this.network.attach(this.peer);
    await this.peer.setLocalDescription(await this.peer.createAnswer());
    for (const transport of this.peer.dtlsTransports) {
      roomForBursts(transport.iceTransport.connection);
    }
    if (!announcesCandidate(this.peer.localDescription?.sdp)) {
      this.log.warn(`publisher ${this.id} (${this.stageId}): ${NO_FREE_PORT}`);
      throw new NoFreePortError();
    }
    this.connectTimer = setTimeout(() => this.close('connect-timeout'), this.connectTimeoutMs);
    return this.congestion.answer(
      withoutReceiveOnlyStreams(
        withoutParameterSets(withSessionIceLite(this.peer.localDescription?.sdp ?? '')),
      ),
    );
  }

  /** Starts sending to `listener`. */
  add(listener: FeedListener): void {
    this.listeners.add(listener);
    this.onStateChange(this);
  }

  remove(listener: FeedListener): void {
    if (this.listeners.delete(listener)) this.onStateChange(this);
  }

  /**
   * A viewer wants a key frame of `layer` (the one it gets; by default the highest arriving, or
   * every layer before any arrives): one is asked for, unless one asked for is on its way.
   * `byViewer`: its own PLI or FIR, at most one a VIEWER_KEY_FRAME_INTERVAL_MS; else a viewer that
   * has had no key frame yet (a join, a layer switch), at once.
   */
  requestKeyFrame(byViewer = false, layer = this.layers.best): void {
    if (byViewer) this.viewerKeyFrameRequests += 1;
    if (this.stateValue === 'closed') return;
    const ask = (requests: KeyFrameRequests) =>
      byViewer ? requests.requestByViewer() : requests.request();
    if (layer) ask(layer.keyFrames);
    else for (const each of this.layers.all) ask(each.keyFrames);
  }

  /** The stage's NACKs to the publisher (nack-requests.ts), none before its video comes. */
  get nacks(): NackCounts {
    return this.nackRequests?.counts ?? emptyNackCounts();
  }

  /** PLIs sent to the publisher, all layers together. */
  get plisSent(): number {
    return this.layers.all.reduce((sum, layer) => sum + layer.keyFrames.sent, 0);
  }

  /** Key frame requests to one layer of the publisher, coalesced and rate-limited. */
  private keyFrameRequests(layer: VideoLayer): KeyFrameRequests {
    return new KeyFrameRequests({
      sendRequest: () => this.sendPli(layer),
      pendingMs: KEY_FRAME_PENDING_MS,
      minIntervalMs: KEY_FRAME_MIN_INTERVAL_MS,
      viewerIntervalMs: VIEWER_KEY_FRAME_INTERVAL_MS,
    });
  }

  private get videoReceiver() {
    return this.peer.getTransceivers().find((transceiver) => transceiver.kind === 'video')
      ?.receiver;
  }

  /** The video's packets, each to its layer: werift has a track per simulcast encoding. */
  private receiveVideo(track: MediaStreamTrack): void {
    if (this.videoReceiving) return;
    this.videoReceiving = true;
    const receiver = this.videoReceiver;
    if (receiver) this.nackRequests = pacedNackRequests(receiver);
    const single = this.layers.byRid(null);
    if (single) {
      track.onReceiveRtp.subscribe((packet) => this.onVideo(packet, single));
      return;
    }
    if (!receiver) return;
    for (const encoding of receiver.tracks) {
      const layer = this.layers.byRid(encoding.rid ?? null);
      if (layer) encoding.onReceiveRtp.subscribe((packet) => this.onVideo(packet, layer));
    }
  }

  private sendPli(layer: VideoLayer): boolean {
    const receiver = this.videoReceiver;
    const ssrc = layer.ssrc;
    // Before the publisher's first packet there is nothing to refresh: its first frame is a key frame.
    if (!receiver || ssrc === undefined) return false;
    void receiver
      .sendRtcpPLI(ssrc)
      .catch(() => undefined)
      .then(() => this.onKeyFrameRequested());
    return true;
  }

  /** Ends the session; idempotent. Listeners are the stage's to move or end. */
  close(reason: string): void {
    if (this.stateValue === 'closed') return;
    this.stateValue = 'closed';
    this.endReason = reason;
    clearTimeout(this.connectTimer);
    this.connection.stop();
    for (const layer of this.layers.all) layer.keyFrames.close();
    this.congestion.stop();
    this.listeners.clear();
    void this.peer.close().catch(() => undefined);
    this.onStateChange(this);
  }

  private onConnectionState(state: string): void {
    if (this.stateValue !== 'closed') this.connection.stateChanged(state);
  }

  private onConnected(): void {
    clearTimeout(this.connectTimer);
    if (this.stateValue !== 'connecting') return;
    this.stateValue = 'connected';
    this.connectedAt = performance.now();
    this.onStateChange(this);
  }

  private onVideo(packet: RtpPacket, layer: VideoLayer): void {
    if (packet.payload.length === 0) {
      this.onVideoPadding(packet, layer);
      return;
    }
    this.videoPackets += 1;
    const now = performance.now();
    const keyFrameStart = layer.receive(packet, now);
    this.layers.update(now);
    if (keyFrameStart) this.keyFramesSeen += 1;
    if (packet.header.marker)
      this.videoFrames.set(layer.rid, (this.videoFrames.get(layer.rid) ?? 0) + 1);
    stripExtensions(packet);
    const inBand =
      packet.header.marker && this.video?.mimeType === 'video/VP8'
        ? layer.inBand.frameEnds(packet.header.timestamp, layer.frameIsKey, now)
        : undefined;
    for (const listener of this.listeners) {
      if (listener.media.video) {
        listener.onVideoPacket(packet.clone(), keyFrameStart, layer, inBand);
      }
    }
  }

  /**
   * An in-band message for the frame captured at `captureTimeMs` (epoch ms), on each of the
   * video's layers, repeated `repeatCount` times (decision 0094). Only a VP8 publisher's messages
   * are carried so: an H.264 publisher writes its own SEI, which the stage passes on untouched.
   * False when this publisher's video cannot carry it.
   */
  insertInBandMessage(message: InBandMessage, captureTimeMs: number, repeatCount: number): boolean {
    if (this.video?.mimeType !== 'video/VP8' || this.stateValue === 'closed') return false;
    const now = performance.now();
    for (const layer of this.layers.all) layer.inBand.add(message, captureTimeMs, repeatCount, now);
    return true;
  }

  /**
   * Padding on the video's SSRC: libwebrtc's bandwidth probes, sent once the stage gives it
   * transport-wide feedback (congestion-feedback.ts). It goes on as an empty packet (its padding
   * left out), so that a viewer sees no gap in the sequence numbers to NACK or count as lost.
   */
  private onVideoPadding(packet: RtpPacket, layer: VideoLayer): void {
    packet.header.padding = false;
    packet.header.paddingSize = 0;
    stripExtensions(packet);
    for (const listener of this.listeners) {
      if (listener.media.video) listener.onVideoPacket(packet.clone(), false, layer);
    }
  }

  private onAudio(packet: RtpPacket): void {
    if (packet.payload.length === 0) return;
    this.audioSsrc = packet.header.ssrc;
    stripExtensions(packet);
    for (const listener of this.listeners) {
      if (listener.media.audio) listener.onAudioPacket(packet.clone());
    }
  }

  /** A sender report of one of the publisher's tracks sets that track's capture clock. */
  private onRtcp(packet: RtcpPacket): void {
    if (!(packet instanceof RtcpSrPacket)) return;
    const clock =
      this.layers.bySsrc(packet.ssrc)?.clock ??
      (packet.ssrc === this.audioSsrc ? this.audioClock : undefined);
    clock?.onSenderReport(packet.senderInfo);
  }
}

/** The codec werift receives: the one chosen from the offer, with the feedback the stage gives. */
export function receiveCodec(codec: PublishedCodec): RTCRtpCodecParameters {
  const video = codec.mimeType !== 'audio/opus';
  return new RTCRtpCodecParameters({
    mimeType: codec.mimeType,
    clockRate: codec.clockRate,
    payloadType: codec.payloadType,
    ...(codec.channels ? { channels: codec.channels } : {}),
    rtcpFeedback: video
      ? [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }, { type: 'ccm', parameter: 'fir' }]
      : [],
  });
}

/** The publisher's header extensions mean nothing on the viewers' connections. */
function stripExtensions(packet: RtpPacket): void {
  packet.header.extension = false;
  packet.header.extensions = [];
}
