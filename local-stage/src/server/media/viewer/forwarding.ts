/**
 * One forwarded track of a viewer's subscription, on top of werift's RTCRtpSender (which rewrites
 * SSRC, payload type and sequence numbers): the packets sent are kept in a cache that answers the
 * viewer's NACKs, as RTX when the viewer negotiated it, else as the packet again; and the viewer's
 * RTCP sender reports carry the publisher's capture clock (capture-clock.ts).
 *
 * werift answers NACKs itself from 128 packets (RTP_HISTORY_SIZE, a constant): 0.6 s of a
 * 2 Mbit/s 720p stream (about 220 packets a second), less than a key frame's burst and its NACK
 * round trip on a lossy link. The cache here holds `VIDEO_CACHE_PACKETS` and werift's is not used
 * (its NACK handling is bypassed, so nothing is sent twice). werift's own SRs are never started.
 *
 * Each packet goes to the viewer's transport (SRTP, ICE) directly rather than through werift's
 * `RTCRtpSender.sendRtp`, which the stage pays for once per packet and viewer: an NTP time built
 * through a string and a BigInt, the header extensions mapped, merged and sorted, its own cache,
 * and bandwidth bookkeeping nobody reads (a profile of the stage, docs/benchmarks.md). The header is
 * rewritten as werift would here: the viewer's SSRC and payload type, sequence numbers and
 * timestamps as they come (werift's offsets stay 0: nothing here replaces a sender's track; a
 * simulcast layer switch has already made them continuous, layer-switch.ts), and the extensions a
 * viewer's offer negotiates: the MID, and the absolute send time, stamped as each packet leaves,
 * from which the viewer estimates its bandwidth and tells it in REMB
 * (docs/decisions/0069-viewer-bandwidth-estimate.md).
 */
import {
  RTP_EXTENSION_URI,
  RtcpReceiverInfo,
  RtcpRrPacket,
  RtcpSenderInfo,
  RtcpSrPacket,
  RtcpTransportLayerFeedback,
  serializeSdesMid,
  wrapRtx,
  type Extension,
  type GenericNack,
  type RTCDtlsTransport,
  type RTCRtpSender,
  type RTCRtpTransceiver,
  type RtcpPacket,
  type RtpHeader,
  type RtpPacket,
} from 'werift';
import { int16Difference } from '../../../codecs/sequence';
import {
  compactNtp,
  epochNowMs,
  ntpFromEpochMs,
  type CaptureClock,
} from '../publisher/capture-clock';

/**
 * About 2.3 s of a 2 Mbit/s 720p stream (about 220 packets of 1,100–1,200 bytes a second), 1.2 s
 * at 4 Mbit/s: enough for a NACK, its retransmission lost too, and a second NACK. At most about
 * 600 KB a viewer.
 */
export const VIDEO_CACHE_PACKETS = 512;
/** Opus at 20 ms frames: 2.5 s (viewers rarely NACK audio; a cheap cache if they do). */
export const AUDIO_CACHE_PACKETS = 128;
/** How often a viewer gets a sender report (libwebrtc sends video SRs every second). */
const SENDER_REPORT_INTERVAL_MS = 1_000;
/** The first two SRs close together: a receiver maps RTP to NTP time from its second one. */
const FIRST_SENDER_REPORT_GAP_MS = 200;
const TWO_TO_32 = 2 ** 32;
/** Retransmissions may take up to this share of what is forwarded... */
const RETRANSMIT_SHARE = 0.5;
/** ...with bursts of up to this many bytes (a lost key frame's packets, about 40 KB at 720p). */
const RETRANSMIT_BURST_BYTES = 60_000;
/** A probe resends at most this many of the newest packets at once. */
const PROBE_PACKETS_BACK = 64;

/**
 * The absolute send time extension's value for `nowMs` (any monotonic clock: the receiver uses
 * only differences): seconds in 6.18 fixed point, 24 bits, wrapping every 64 s.
 */
export function absSendTime(nowMs: number): Buffer {
  const value = Math.floor((nowMs * 262_144) / 1000) % 0x1000000;
  const payload = Buffer.alloc(3);
  payload.writeUIntBE(value, 0, 3);
  return payload;
}

/** What a forwarded track has done, for the stage's stats and the tests. */
export interface ForwardingCounts {
  packets: number;
  nacks: number;
  /** Packets sent again for a NACK (as RTX or plain), and their payload bytes. */
  retransmitted: number;
  retransmittedBytes: number;
  /** Packets sent again as RTX to probe the viewer's link (not asked for). */
  probePackets: number;
  /** NACKed packets already gone from the cache (or never sent). */
  notCached: number;
  /** NACKed packets not sent again: the retransmission budget was spent (a congested viewer). */
  overBudget: number;
  /** NACKed packets not sent again: of a layer the viewer left (its key frame replaced them). */
  superseded: number;
  senderReports: number;
}

export class TrackForwarder {
  readonly counts: ForwardingCounts = {
    packets: 0,
    nacks: 0,
    retransmitted: 0,
    retransmittedBytes: 0,
    probePackets: 0,
    notCached: 0,
    overBudget: 0,
    superseded: 0,
    senderReports: 0,
  };
  private readonly sender: RTCRtpSender;
  private readonly transceiver: RTCRtpTransceiver;
  private readonly clock: Pick<CaptureClock, 'rtpTimestampAt'> | undefined;
  private readonly cache: (RtpPacket | undefined)[];
  private octets = 0;
  /**
   * The header extensions every packet to the viewer carries (the MID, if negotiated): built at
   * the first packet sent, once the viewer's transport is connected and so its one negotiation
   * done (a subscription is never negotiated again).
   */
  private extensions: Extension[] | undefined;
  /** The absolute send time's extension id, if the viewer negotiated it (found with the MID's). */
  private absSendTimeId: number | undefined;
  /** The last sequence number forwarded (the newest packet in the cache). */
  private lastSequence: number | undefined;
  private rtxSequenceNumber = Math.floor(Math.random() * 65_536);
  /**
   * Bytes that may be sent again for NACKs: each packet forwarded adds `RETRANSMIT_SHARE` of its
   * size, up to `RETRANSMIT_BURST_BYTES`. A viewer whose link cannot carry the layer NACKs nearly
   * everything, every round trip; answering all of it keeps its queue full (8,860 retransmissions
   * in 5.6 s on a 400 kbit/s link were measured), as libwebrtc's sender, which caps them, does not.
   */
  private retransmitBudget = RETRANSMIT_BURST_BYTES;
  /** Packets before this sequence number are not sent again (see `retransmitFrom`). */
  private retransmitFloor: number | undefined;
  /** The viewer's own SSRC (its receiver reports') and the round trip they measure. */
  private viewerSsrc: number | undefined;
  private roundTripMs: number | undefined;
  private reportTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly onRetransmitted: (bytes: number) => void;

  constructor(options: {
    sender: RTCRtpSender;
    transceiver: RTCRtpTransceiver;
    /**
     * The publisher's capture clock for this track, as the viewer's timestamps run (undefined: no
     * SRs are sent).
     */
    clock: Pick<CaptureClock, 'rtpTimestampAt'> | undefined;
    cachePackets: number;
    /** A packet's payload was sent again for a NACK (its bytes). */
    onRetransmitted?: (bytes: number) => void;
  }) {
    this.sender = options.sender;
    this.transceiver = options.transceiver;
    this.clock = options.clock;
    this.cache = new Array<RtpPacket | undefined>(options.cachePackets);
    this.onRetransmitted = options.onRetransmitted ?? (() => undefined);
    // werift's SR loop starts at the first packet unless it seems to run already.
    this.sender.rtcpRunning = true;
    const handleRtcp = this.sender.handleRtcpPacket.bind(this.sender);
    this.sender.handleRtcpPacket = (rtcp: RtcpPacket) => {
      if (rtcp instanceof RtcpTransportLayerFeedback && 'lost' in rtcp.feedback) {
        this.retransmit(nackedSequenceNumbers(rtcp.feedback));
        return;
      }
      if (rtcp instanceof RtcpRrPacket) this.onReceiverReport(rtcp);
      handleRtcp(rtcp);
    };
  }

  /**
   * Sends `packet` (the viewer's own copy: its header is rewritten in place) to the viewer and
   * keeps it for NACKs. Nothing is sent before the viewer's transport is connected.
   */
  forward(packet: RtpPacket): void {
    if (this.closed) return;
    const transport = this.transport;
    const codec = this.sender.codec;
    if (!transport || transport.state !== 'connected' || !codec) return;
    const header = packet.header;
    header.ssrc = this.sender.ssrc;
    header.payloadType = codec.payloadType;
    header.extensions = this.stampedExtensions();
    void transport.sendRtp(packet.payload, header).catch(() => undefined);
    this.cache[header.sequenceNumber % this.cache.length] = packet;
    this.lastSequence = header.sequenceNumber;
    this.counts.packets += 1;
    this.octets += packet.payload.length;
    this.retransmitBudget = Math.min(
      RETRANSMIT_BURST_BYTES,
      this.retransmitBudget + RETRANSMIT_SHARE * packet.payload.length,
    );
    if (this.reportTimer === undefined && this.clock) {
      this.reportTimer = setTimeout(() => this.sendReport(), FIRST_SENDER_REPORT_GAP_MS);
    }
  }

  /**
   * Sends about `bytes` of padding to probe the viewer's link: the newest packets again, as RTX
   * (payload the receiver counts in its estimate and then drops as a duplicate, as libwebrtc's
   * redundant padding is). Nothing without RTX. Returns the bytes sent.
   */
  pad(bytes: number): number {
    const transport = this.transport;
    const rtxPayloadType = this.rtxPayloadType();
    if (this.closed || !transport || transport.state !== 'connected') return 0;
    if (rtxPayloadType === undefined || this.lastSequence === undefined) return 0;
    let sent = 0;
    for (let back = 0; sent < bytes && back < PROBE_PACKETS_BACK; back += 1) {
      const sequenceNumber = (this.lastSequence - back + 65_536) % 65_536;
      const cached = this.cache[sequenceNumber % this.cache.length];
      if (!cached || cached.header.sequenceNumber !== sequenceNumber) break;
      const packet = wrapRtx(cached, rtxPayloadType, this.rtxSequenceNumber, this.sender.rtxSsrc);
      this.rtxSequenceNumber = (this.rtxSequenceNumber + 1) % 65_536;
      packet.header.extensions = this.stampedExtensions();
      void transport.sendRtp(packet.payload, packet.header).catch(() => undefined);
      sent += packet.payload.length;
      this.counts.probePackets += 1;
    }
    return sent;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.reportTimer);
    this.cache.fill(undefined);
  }

  /** A packet's header extensions as it leaves now: the MID, and the send time. */
  private stampedExtensions(): Extension[] {
    const extensions = (this.extensions ??= this.negotiatedExtensions());
    if (this.absSendTimeId === undefined) return extensions;
    return [...extensions, { id: this.absSendTimeId, payload: absSendTime(performance.now()) }];
  }

  /** The header extensions every packet carries: the MID, if the viewer negotiated it. */
  private negotiatedExtensions(): Extension[] {
    const mid = this.transceiver.mid;
    const idOf = (uri: string) =>
      this.transceiver.headerExtensions.find((extension) => extension.uri === uri)?.id;
    this.absSendTimeId = idOf(RTP_EXTENSION_URI.absSendTime);
    const id = idOf(RTP_EXTENSION_URI.sdesMid);
    if (mid === null || mid === undefined || id === undefined) return [];
    return [{ id, payload: serializeSdesMid(mid) }];
  }

  /**
   * From now on, NACKs for packets before `sequenceNumber` go unanswered: they belong to a layer
   * the viewer no longer gets, whose pictures the new layer's key frame (at `sequenceNumber`)
   * replaces.
   */
  retransmitFrom(sequenceNumber: number): void {
    this.retransmitFloor = sequenceNumber;
  }

  private get transport(): RTCDtlsTransport | undefined {
    return this.sender.transport ?? undefined;
  }

  private retransmit(sequenceNumbers: number[]): void {
    const transport = this.transport;
    if (this.closed || !transport) return;
    this.counts.nacks += 1;
    const rtxPayloadType = this.rtxPayloadType();
    for (const sequenceNumber of sequenceNumbers) {
      const floor = this.retransmitFloor;
      if (floor !== undefined && int16Difference(sequenceNumber, floor) < 0) {
        this.counts.superseded += 1;
        continue;
      }
      const cached = this.cache[sequenceNumber % this.cache.length];
      if (!cached || cached.header.sequenceNumber !== sequenceNumber) {
        this.counts.notCached += 1;
        continue;
      }
      if (this.retransmitBudget < cached.payload.length) {
        this.counts.overBudget += 1;
        continue;
      }
      this.retransmitBudget -= cached.payload.length;
      let packet = cached;
      if (rtxPayloadType !== undefined) {
        packet = wrapRtx(cached, rtxPayloadType, this.rtxSequenceNumber, this.sender.rtxSsrc);
        this.rtxSequenceNumber = (this.rtxSequenceNumber + 1) % 65_536;
      }
      // Sent now: a stale send time would read as a queue to the viewer's estimator.
      packet.header.extensions = this.stampedExtensions();
      this.counts.retransmitted += 1;
      this.counts.retransmittedBytes += cached.payload.length;
      this.onRetransmitted(cached.payload.length);
      void transport.sendRtp(packet.payload, packet.header).catch(() => undefined);
    }
  }

  /** The round trip to the viewer, ms, from its last receiver report of this track. */
  get roundTrip(): number | undefined {
    return this.roundTripMs;
  }

  /** A receiver report about this track: the round trip from our last SR (RFC 3550 6.4.1). */
  private onReceiverReport(report: RtcpRrPacket): void {
    this.viewerSsrc = report.ssrc;
    const block = report.reports.find((candidate) => candidate.ssrc === this.sender.ssrc);
    if (!block || block.lsr === 0) return;
    const now = compactNtp(ntpFromEpochMs(epochNowMs()));
    const roundTrip = (now - block.lsr - block.dlsr + TWO_TO_32) % TWO_TO_32;
    // Above 2^31 the report came back before it was sent: a clock step; ignore it.
    if (roundTrip < 2 ** 31) this.roundTripMs = (roundTrip / 65_536) * 1000;
  }

  /**
   * A report block that gives a receive-only viewer its round-trip time. libwebrtc maps RTP
   * timestamps to capture times (requestVideoFrameCallback's captureTime, audio/video sync) only
   * once it knows one, and a viewer that sends no media learns it from nowhere else: it does not
   * offer RTCP XR's RRTR (RFC 3611), and SRs come only one way. A report block about the viewer's
   * own SSRC whose "last SR" is our send time less half the round trip we measured makes it
   * compute that round trip (arrival − LSR − DLSR), assuming its clock agrees with the stage's
   * (one machine, or NTP-synchronised ones; a viewer clock off by d sees the round trip plus d,
   * and capture times off by d/2). None before the viewer's first receiver report.
   */
  private roundTripBlock(nowMs: number): RtcpReceiverInfo[] {
    if (this.viewerSsrc === undefined || this.roundTripMs === undefined) return [];
    return [
      new RtcpReceiverInfo({
        ssrc: this.viewerSsrc,
        fractionLost: 0,
        packetsLost: 0,
        highestSequence: 0,
        jitter: 0,
        lsr: compactNtp(ntpFromEpochMs(nowMs - this.roundTripMs / 2)),
        dlsr: 0,
      }),
    ];
  }

  /** The RTX payload type the viewer negotiated for the codec sent, if any. */
  private rtxPayloadType(): number | undefined {
    const sent = this.sender.codec?.payloadType;
    if (sent === undefined) return undefined;
    return this.transceiver.codecs.find(
      (codec) =>
        codec.mimeType.toLowerCase().endsWith('/rtx') &&
        /(?:^|;)\s*apt=(\d+)/.exec(codec.parameters ?? '')?.[1] === String(sent),
    )?.payloadType;
  }

  /**
   * An SR now: the stage's NTP time and the RTP timestamp the publisher's clock gives for it
   * (translated as werift translates the packets). None until the publisher sent one.
   */
  private sendReport(): void {
    this.reportTimer = setTimeout(() => this.sendReport(), SENDER_REPORT_INTERVAL_MS);
    const transport = this.transport;
    if (this.closed || !transport || transport.state !== 'connected') return;
    const nowMs = epochNowMs();
    const publisherTimestamp = this.clock?.rtpTimestampAt(nowMs);
    if (publisherTimestamp === undefined) return;
    const report = new RtcpSrPacket({
      ssrc: this.sender.ssrc,
      reports: this.roundTripBlock(nowMs),
      senderInfo: new RtcpSenderInfo({
        ntpTimestamp: ntpFromEpochMs(nowMs),
        // The clock runs as the forwarded timestamps do (a layer switch moves both alike).
        rtpTimestamp: publisherTimestamp % TWO_TO_32,
        packetCount: this.counts.packets % TWO_TO_32,
        octetCount: this.octets % TWO_TO_32,
      }),
    });
    this.counts.senderReports += 1;
    void transport.sendRtcp([report]).catch(() => undefined);
  }
}

/**
 * The sequence numbers a NACK asks for. werift parses a NACK's FCI entries to the end of the
 * compound RTCP packet it came in (the receiver report after it reads as more entries), so only
 * the entries within the NACK's own length are taken: its `header.length` counts two SSRC words
 * and one word per entry, and each entry is a packet id followed by up to 16 later ones.
 */
export function nackedSequenceNumbers(nack: GenericNack): number[] {
  const entries = nack.header.length - 2;
  const sequenceNumbers: number[] = [];
  let entry = 0;
  let packetId = -1;
  let previous = -1;
  for (const value of nack.lost) {
    const sameEntry = entry > 0 && value > previous && value <= packetId + 16;
    if (!sameEntry) {
      entry += 1;
      if (entry > entries) break;
      packetId = value;
    }
    previous = value;
    sequenceNumbers.push(value % 65_536);
  }
  return sequenceNumbers;
}

/**
 * The loopback-only loss fault (`POST /_faults/loss`): drops `share()` percent of the RTP a
 * subscription's transport sends, after the cache (so NACKs can recover them), retransmissions
 * included, as a lossy link would. This machine's kernel has no netem (docs/reliability.md).
 * Installed only while a loss fault is set: returns what takes it off again, so that a viewer's
 * sends pay nothing for it otherwise.
 */
export function withOutgoingLoss(
  transport: RTCDtlsTransport,
  share: () => number,
  onDropped: () => void,
): () => void {
  const send = transport.sendRtp.bind(transport);
  transport.sendRtp = (payload: Buffer, header: RtpHeader) => {
    const percent = share();
    if (percent > 0 && Math.random() * 100 < percent) {
      onDropped();
      return Promise.resolve(0);
    }
    return send(payload, header);
  };
  return () => {
    transport.sendRtp = send;
  };
}
