/**
 * Puts a key frame back together from the RTP packets a player receives (RFC 7741 for VP8,
 * RFC 6184 packetization-mode 1 for H.264), and only key frames: every other frame is dropped as
 * its last packet arrives, so the thumbnail process holds one frame's packets at most and decodes
 * nothing but the newest key frame (docs/decisions/0070-thumbnails.md).
 *
 * A frame is whole when its packets, by sequence number, run without a gap from one that opens a
 * key frame to the one with the marker bit. A frame missing a packet is dropped: the next key
 * frame serves.
 */
import { int16Distance } from '../codecs/sequence';
import { isVp8KeyFrameStart, vp8DescriptorLength, vp8KeyFrameSize } from '../codecs/vp8';

export type ThumbnailCodec = 'vp8' | 'h264';

export interface RtpPacketView {
  sequenceNumber: number;
  timestamp: number;
  marker: boolean;
  payload: Uint8Array;
}

export interface KeyFrame {
  codec: ThumbnailCodec;
  /** VP8: the frame as RFC 6386 writes it; H.264: Annex B NAL units, parameter sets first. */
  data: Uint8Array;
  /** VP8 only (H.264's size is in its SPS, which the decoder reads). */
  width?: number;
  height?: number;
  rtpTimestamp: number;
}

const NAL_IDR = 5;
const NAL_SPS = 7;
const NAL_PPS = 8;
const STAP_A = 24;
const FU_A = 28;
const START_CODE = Uint8Array.of(0, 0, 0, 1);
/** A key frame bigger than this is not a camera's: dropped rather than held. */
const MAX_FRAME_PACKETS = 4_000;

export class KeyFrameAssembler {
  private packets: RtpPacketView[] = [];
  private timestamp: number | undefined;
  /** H.264 parameter sets last seen in band, for a key frame sent without them. */
  private sps: Uint8Array | undefined;
  private pps: Uint8Array | undefined;

  constructor(readonly codec: ThumbnailCodec) {}

  /** Takes one packet; returns the key frame it completes, if it completes one. */
  push(packet: RtpPacketView): KeyFrame | undefined {
    if (packet.timestamp !== this.timestamp) {
      this.packets = [];
      this.timestamp = packet.timestamp;
    }
    if (this.packets.length < MAX_FRAME_PACKETS) this.packets.push(packet);
    if (!packet.marker) return undefined;
    const frame = this.whole();
    this.packets = [];
    if (!frame) return undefined;
    return this.codec === 'vp8' ? vp8KeyFrame(frame) : this.h264KeyFrame(frame);
  }

  /** The current frame's packets in order, or undefined when one is missing. */
  private whole(): RtpPacketView[] | undefined {
    const last = this.packets[this.packets.length - 1];
    if (!last) return undefined;
    // Distance back from the marker packet, modulo 2^16: the frame's packets sit at 0..n-1.
    const bySlot = new Map<number, RtpPacketView>();
    for (const packet of this.packets) {
      bySlot.set(int16Distance(last.sequenceNumber, packet.sequenceNumber), packet);
    }
    const count = Math.max(...bySlot.keys()) + 1;
    if (count !== bySlot.size) return undefined;
    const ordered: RtpPacketView[] = [];
    for (let slot = count - 1; slot >= 0; slot -= 1)
      ordered.push(bySlot.get(slot) as RtpPacketView);
    return ordered;
  }

  private h264KeyFrame(packets: RtpPacketView[]): KeyFrame | undefined {
    const units: Uint8Array[] = [];
    let fragment: Uint8Array[] | undefined;
    for (const { payload } of packets) {
      const type = (payload[0] ?? 0) & 0x1f;
      if (type >= 1 && type <= 23) units.push(payload);
      else if (type === STAP_A) units.push(...stapUnits(payload));
      else if (type === FU_A && payload.length > 2) {
        const header = payload[1] ?? 0;
        if (header & 0x80) {
          fragment = [Uint8Array.of(((payload[0] ?? 0) & 0xe0) | (header & 0x1f))];
        }
        if (!fragment) return undefined; // a fragment whose start is not in this frame
        fragment.push(payload.subarray(2));
        if (header & 0x40) {
          units.push(concat(fragment));
          fragment = undefined;
        }
      }
    }
    const types = units.map((unit) => (unit[0] ?? 0) & 0x1f);
    for (const [index, type] of types.entries()) {
      if (type === NAL_SPS) this.sps = units[index];
      if (type === NAL_PPS) this.pps = units[index];
    }
    if (!types.includes(NAL_IDR)) return undefined;
    const parameterSets: Uint8Array[] = [];
    if (!types.includes(NAL_SPS) && this.sps) parameterSets.push(this.sps);
    if (!types.includes(NAL_PPS) && this.pps) parameterSets.push(this.pps);
    const annexB = [...parameterSets, ...units].flatMap((unit) => [START_CODE, unit]);
    return { codec: 'h264', data: concat(annexB), rtpTimestamp: packets[0]?.timestamp ?? 0 };
  }
}

function vp8KeyFrame(packets: RtpPacketView[]): KeyFrame | undefined {
  const first = packets[0];
  if (!first || !isVp8KeyFrameStart(first.payload)) return undefined;
  const parts: Uint8Array[] = [];
  for (const { payload } of packets) {
    const offset = vp8DescriptorLength(payload);
    if (offset === undefined) return undefined;
    parts.push(payload.subarray(offset));
  }
  const size = vp8KeyFrameSize(first.payload);
  return { codec: 'vp8', data: concat(parts), ...size, rtpTimestamp: first.timestamp };
}

/** The NAL units of a STAP-A: (16-bit size, unit) repeated after its header. */
function stapUnits(payload: Uint8Array): Uint8Array[] {
  const units: Uint8Array[] = [];
  for (let offset = 1; offset + 2 <= payload.length;) {
    const size = ((payload[offset] ?? 0) << 8) | (payload[offset + 1] ?? 0);
    if (size === 0 || offset + 2 + size > payload.length) break;
    units.push(payload.subarray(offset + 2, offset + 2 + size));
    offset += 2 + size;
  }
  return units;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
