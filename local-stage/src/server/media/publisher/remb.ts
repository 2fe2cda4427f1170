/**
 * REMB (draft-alvestrand-rmcat-remb-03): the most a publisher should send, in bit/s. The stage
 * sends it for two reasons: as the whole estimate to a publisher that offers `goog-remb` and not
 * transport-wide CC, and as an aircraft's cap (`STAGE_PUBLISH_MAX_KBPS`), which libwebrtc honours
 * beside its own transport-wide estimate (docs/decisions/0066-congestion-feedback.md).
 */
import { int16Difference } from '../../../codecs/sequence';

const PSFB = 206;
const APPLICATION_LAYER_FMT = 15;
const MAX_MANTISSA = 0x3ffff;

/** The RTCP packet (PT 206, FMT 15) saying `bitrate` bit/s for `ssrcs`. */
export function encodeRemb(
  senderSsrc: number,
  bitrate: number,
  ssrcs: readonly number[],
): Buffer<ArrayBuffer> {
  let mantissa = Math.max(0, Math.floor(bitrate));
  let exponent = 0;
  while (mantissa > MAX_MANTISSA) {
    mantissa = Math.floor(mantissa / 2);
    exponent += 1;
  }
  const packet = Buffer.alloc(20 + 4 * ssrcs.length);
  packet[0] = 0x80 | APPLICATION_LAYER_FMT;
  packet[1] = PSFB;
  packet.writeUInt16BE(packet.length / 4 - 1, 2);
  packet.writeUInt32BE(senderSsrc >>> 0, 4);
  packet.writeUInt32BE(0, 8); // media source: always 0 for REMB
  packet.write('REMB', 12, 'ascii');
  packet[16] = ssrcs.length;
  packet.writeUIntBE(exponent * 2 ** 18 + mantissa, 17, 3);
  ssrcs.forEach((ssrc, i) => packet.writeUInt32BE(ssrc >>> 0, 20 + 4 * i));
  return packet;
}

export interface DecodedRemb {
  senderSsrc: number;
  bitrate: number;
  ssrcs: number[];
}

/** Reads a REMB packet; throws on anything else. */
export function decodeRemb(packet: Uint8Array): DecodedRemb {
  const data = Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength);
  if (
    data.length < 20 ||
    data[1] !== PSFB ||
    (data.readUInt8(0) & 0x1f) !== APPLICATION_LAYER_FMT
  ) {
    throw new Error('not a payload-specific application-layer feedback');
  }
  if ((data.readUInt16BE(2) + 1) * 4 !== data.length) throw new Error('bad length field');
  if (data.toString('ascii', 12, 16) !== 'REMB') throw new Error('not REMB');
  const count = data[16] ?? 0;
  if (data.length !== 20 + 4 * count) throw new Error('the SSRC count does not match');
  const field = data.readUIntBE(17, 3);
  const bitrate = (field & MAX_MANTISSA) * 2 ** (field >>> 18);
  const ssrcs = Array.from({ length: count }, (_, i) => data.readUInt32BE(20 + 4 * i));
  return { senderSsrc: data.readUInt32BE(4), bitrate, ssrcs };
}

/** The least a REMB-only publisher's estimate ever says. */
export const REMB_MIN_BPS = 100_000;
/** Above what arrives, so that the publisher may keep growing (libwebrtc's loss-based +8 %/s). */
const HEADROOM = 1.5;
/** Over this share of packets lost the estimate falls to what arrived, less a margin. */
const HIGH_LOSS = 0.1;

/**
 * A receive-rate estimate for a publisher that takes REMB and not transport-wide CC: each second,
 * what arrived (bytes, and packets lost by the gaps in each stream's RTP sequence numbers). With
 * little loss it says half as much again as arrived, so the sender's own loss-based controller
 * stays free to grow; with heavy loss it says 85 % of what arrived. It says nothing before its
 * first second has been measured, so a sender starting high is not pulled down by a guess. It is loss-based only: a
 * delay-based estimate would need abs-send-time, which the publishers that matter replaced with
 * transport-wide CC.
 */
export class ReceiveRateEstimate {
  private bytes = 0;
  private readonly streams = new Map<number, { highest: number; expected: number; got: number }>();
  private estimate: number | undefined;

  /** A packet of `size` bytes with RTP sequence number `sequenceNumber` on `ssrc` arrived. */
  record(ssrc: number, sequenceNumber: number, size: number): void {
    this.bytes += size;
    const stream = this.streams.get(ssrc);
    if (!stream) {
      this.streams.set(ssrc, { highest: sequenceNumber, expected: 1, got: 1 });
      return;
    }
    const ahead = int16Difference(sequenceNumber, stream.highest);
    if (ahead > 0) {
      stream.expected += ahead;
      stream.highest = sequenceNumber;
    }
    stream.got += 1;
  }

  /** The estimate after `elapsedMs` of what was recorded (the counts start again). */
  update(elapsedMs: number): number {
    let expected = 0;
    let got = 0;
    for (const stream of this.streams.values()) {
      expected += stream.expected;
      got += stream.got;
      stream.expected = 0;
      stream.got = 0;
    }
    const arrived = (this.bytes * 8 * 1000) / Math.max(elapsedMs, 1);
    this.bytes = 0;
    const loss = expected > 0 ? Math.max(0, 1 - got / expected) : 0;
    if (loss > HIGH_LOSS) this.estimate = arrived * 0.85;
    else this.estimate = Math.max((this.estimate ?? 0) * 0.95, arrived * HEADROOM);
    this.estimate = Math.max(REMB_MIN_BPS, this.estimate);
    return this.estimate;
  }
}
