/**
 * The congestion feedback the stage gives one publisher (decision 0066): transport-wide
 * CC feedback every 50 ms when its offer has the extension and `transport-cc`; REMB when it offers
 * `goog-remb`, as the whole estimate for a publisher without transport-wide CC, and as the
 * aircraft's cap (`STAGE_PUBLISH_MAX_KBPS`) for any. Without it libwebrtc's GCC only creeps up
 * on receiver reports (about 8 % a second) and holds its encoder low.
 *
 * werift's own transport-wide CC stays off: it starts when the negotiated codec, which werift takes
 * from the offer with its feedback lines, has `transport-cc`, and the offer werift is given keeps
 * NACK, PLI and FIR only (sdp/offer-sdp.ts; congestion-feedback.test.ts holds it). The answer gets the
 * line here instead, from the offer as the publisher wrote it.
 *
 * The camera process's own cameras (`ownCamera`: a trusted process on loopback, decision 0079) get
 * no transport-wide CC: the arrival times the stage stamps in its busy event loop read, to GCC, as
 * a queue that grows with the viewers (the camera's estimate fell from about 2 to 0.3–0.8 Mbit/s
 * at 100). Their rate is their own configuration, with REMB at the aircraft's cap when it has one.
 */
import { parse, write, type MediaDescription } from 'sdp-transform';
import { RtcpRrPacket, type RtcpPacket, type RtpPacket } from 'werift';
import { encodeRemb, ReceiveRateEstimate } from './remb';
import { TRANSPORT_CC_URI, TransportCcRecorder } from './transport-cc';

/** Transport-wide feedback this often: libwebrtc's own receivers send it every 50–100 ms. */
export const TRANSPORT_CC_INTERVAL_MS = 50;
/** REMB (the estimate or the cap) this often, and at the first packet. */
export const REMB_INTERVAL_MS = 1_000;

type FeedbackType = 'transport-cc' | 'goog-remb';

/** What the feedback needs of werift's DTLS transport (`RTCDtlsTransport`). */
export interface FeedbackTransport {
  readonly state: string;
  readonly onRtp: {
    subscribe(listener: (packet: RtpPacket) => void): { unSubscribe: () => void };
  };
  sendRtcp(packets: RtcpPacket[]): Promise<unknown>;
}

export interface CongestionFeedbackOptions {
  /** The publisher's offer: what feedback it takes. */
  offerSdp: string;
  /** The aircraft's cap in bit/s, sent as REMB; none when undefined. */
  maxBitrate?: number;
  /**
   * The publisher is the camera process's synthetic camera (a trusted process on loopback): no
   * delay-based feedback; REMB, if it offers it, is the aircraft's cap alone, never an estimate.
   */
  ownCamera?: boolean;
  /** A monotonic clock in ms (tests give their own). */
  now?: () => number;
}

/** What the stage has sent a publisher, for the stats and the tests. */
export interface CongestionFeedbackCounts {
  transportCcMessages: number;
  rembMessages: number;
  /** The last REMB's bitrate, bit/s. */
  lastRembBitrate: number | undefined;
}

export class CongestionFeedback {
  /** The offer has the transport-wide CC extension and `transport-cc`: the stage sends feedback. */
  readonly transportCc: boolean;
  /** The offer has `goog-remb`. */
  readonly remb: boolean;
  readonly counts: CongestionFeedbackCounts = {
    transportCcMessages: 0,
    rembMessages: 0,
    lastRembBitrate: undefined,
  };
  private readonly offer: ReturnType<typeof parse>;
  private readonly maxBitrate: number | undefined;
  /** REMB carries the stage's own estimate (no transport-wide CC, not our camera), not only the cap. */
  private readonly rembEstimates: boolean;
  private readonly now: () => number;
  private readonly senderSsrc = Math.floor(Math.random() * 0xffffffff) >>> 0;
  private readonly recorder = new TransportCcRecorder(this.senderSsrc);
  private readonly estimate = new ReceiveRateEstimate();
  private readonly ssrcs = new Set<number>();
  private extensionIds = new Set<number>();
  private transport: FeedbackTransport | undefined;
  private timers: NodeJS.Timeout[] = [];
  private lastRembAt: number | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(options: CongestionFeedbackOptions) {
    this.offer = parse(options.offerSdp);
    this.maxBitrate = options.maxBitrate;
    this.now = options.now ?? (() => performance.now());
    const ownCamera = options.ownCamera ?? false;
    this.transportCc =
      !ownCamera &&
      this.offer.media.some(
        (media) =>
          offersFeedback(media, 'transport-cc') &&
          (media.ext ?? []).some((ext) => ext.uri === TRANSPORT_CC_URI),
      );
    this.remb = this.offer.media.some((media) => offersFeedback(media, 'goog-remb'));
    this.rembEstimates = !this.transportCc && !ownCamera;
  }

  /** Whether REMB goes to this publisher: its whole estimate, or the aircraft's cap. */
  get sendsRemb(): boolean {
    return this.remb && (this.rembEstimates || this.maxBitrate !== undefined);
  }

  /**
   * The answer with the feedback the stage gives: `transport-cc` and `goog-remb` for each codec
   * the offer gave them, and the transport-wide CC extension only beside `transport-cc`.
   */
  answer(answerSdp: string): string {
    const answer = parse(answerSdp);
    for (const media of answer.media) {
      const offered = this.offer.media.find((section) => section.mid === media.mid);
      if (!offered) continue;
      if (!this.transportCc) media.ext = media.ext?.filter((ext) => ext.uri !== TRANSPORT_CC_URI);
      const types: FeedbackType[] = [
        ...(this.transportCc ? (['transport-cc'] as const) : []),
        ...(this.remb ? (['goog-remb'] as const) : []),
      ];
      for (const { payload } of media.rtp) {
        for (const type of types) {
          if (!offersFeedback(offered, type, payload)) continue;
          const lines = (media.rtcpFb ??= []);
          if (!lines.some((line) => line.payload === payload && line.type === type)) {
            lines.push({ payload, type });
          }
        }
      }
    }
    this.extensionIds = new Set(
      answer.media.flatMap((media) =>
        (media.ext ?? []).filter((ext) => ext.uri === TRANSPORT_CC_URI).map((ext) => ext.value),
      ),
    );
    return write(answer);
  }

  /** Listens to the publisher's packets on `transport` and sends the feedback there. */
  attach(transport: FeedbackTransport): void {
    if (this.transport || (!this.transportCc && !this.sendsRemb)) return;
    this.transport = transport;
    this.unsubscribe = transport.onRtp.subscribe((packet) => this.onPacket(packet)).unSubscribe;
    if (this.transportCc) {
      this.timers.push(setInterval(() => this.sendTransportCc(), TRANSPORT_CC_INTERVAL_MS));
    }
    if (this.sendsRemb) this.timers.push(setInterval(() => this.sendRemb(), REMB_INTERVAL_MS));
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Each packet of the publisher's, as it arrives (before werift routes it). */
  onPacket(packet: RtpPacket): void {
    const arrivalMs = this.now();
    const { header } = packet;
    this.ssrcs.add(header.ssrc);
    if (this.transportCc) {
      for (const extension of header.extensions) {
        if (this.extensionIds.has(extension.id) && extension.payload.length >= 2) {
          this.recorder.record(extension.payload.readUInt16BE(0), arrivalMs);
        }
      }
    }
    if (this.sendsRemb) {
      this.estimate.record(header.ssrc, header.sequenceNumber, packet.payload.length + 12);
      if (this.lastRembAt === undefined) this.sendRemb();
    }
  }

  private sendTransportCc(): void {
    const mediaSsrc = this.ssrcs.values().next().value ?? 0;
    for (const message of this.recorder.takeFeedback(mediaSsrc)) {
      if (this.send(message)) this.counts.transportCcMessages += 1;
    }
  }

  /** The cap, and a REMB-only publisher's estimate once a first interval has been measured. */
  private sendRemb(): void {
    const at = this.now();
    const elapsed = at - (this.lastRembAt ?? at);
    this.lastRembAt = at;
    let bitrate = this.maxBitrate ?? Infinity;
    if (this.rembEstimates && elapsed > 0) {
      bitrate = Math.min(bitrate, this.estimate.update(elapsed));
    }
    if (this.ssrcs.size === 0 || !Number.isFinite(bitrate)) return;
    if (this.send(encodeRemb(this.senderSsrc, bitrate, [...this.ssrcs].slice(0, 8)))) {
      this.counts.rembMessages += 1;
      this.counts.lastRembBitrate = bitrate;
    }
  }

  private send(packet: Buffer<ArrayBuffer>): boolean {
    const transport = this.transport;
    if (transport?.state !== 'connected') return false;
    transport.sendRtcp([new WrittenRtcp(packet)]).catch(() => undefined);
    return true;
  }
}

/** Whether the offer's `media` section asks for `type` feedback (for `payload`, or any codec). */
function offersFeedback(media: MediaDescription, type: FeedbackType, payload?: number): boolean {
  return (media.rtcpFb ?? []).some(
    (line) =>
      line.type === type &&
      line.subtype === undefined &&
      (payload === undefined || line.payload === '*' || Number(line.payload) === payload),
  );
}

/**
 * An RTCP packet the stage wrote itself, handed to werift's `sendRtcp` (which encrypts and sends
 * whatever each packet serializes to).
 */
class WrittenRtcp extends RtcpRrPacket {
  constructor(private readonly packet: Buffer<ArrayBuffer>) {
    super();
  }

  override serialize(): Buffer<ArrayBuffer> {
    return this.packet;
  }
}
