/**
 * Transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01):
 * what the stage tells each publisher about the packets that reached it, so that libwebrtc's GCC
 * (Chromium, the camera process) fits its send rate to the link. The stage writes its own rather
 * than werift 0.24's (docs/decisions/0066-congestion-feedback.md).
 *
 * `TransportCcRecorder` keeps each packet's transport-wide sequence number and arrival time and
 * turns what arrived since the last call into feedback messages; `encodeTransportFeedback` and
 * `decodeTransportFeedback` are the wire format (the decoder is the tests' and the bench's).
 */
import { int16Difference } from '../../../codecs/sequence';

export const TRANSPORT_CC_URI =
  'http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01';

/** Packet status symbols (§3.1.1); 3 is reserved in -01 and read as received without a delta. */
export const NOT_RECEIVED = 0;
export const SMALL_DELTA = 1;
export const LARGE_DELTA = 2;
const NO_DELTA = 3;
export type PacketStatus = 0 | 1 | 2 | 3;

/** Receive deltas and arrival times are in 250 µs ticks; the reference time in 64 ms units. */
export const TICKS_PER_MS = 4;
const TICKS_PER_REFERENCE = 256;
const RTPFB = 205;
const TRANSPORT_CC_FMT = 15;
const MAX_RUN_LENGTH = 0x1fff;
const MIN_LARGE_DELTA = -0x8000;
const MAX_LARGE_DELTA = 0x7fff;

export interface FeedbackMessage {
  senderSsrc: number;
  mediaSsrc: number;
  /** The first packet's transport-wide sequence number (16 bits). */
  baseSequenceNumber: number;
  /** In 64 ms units, unbounded here: written as its low 24 bits. The first delta is from it. */
  referenceTime: number;
  /** 8 bits, one more for each message sent. */
  feedbackPacketCount: number;
  /** For each sequence number from the base: its arrival in 250 µs ticks, or undefined if lost. */
  arrivals: readonly (number | undefined)[];
}

/** The RTCP packet (PT 205, FMT 15) for `message`, padded to 32 bits. */
export function encodeTransportFeedback(message: FeedbackMessage): Buffer<ArrayBuffer> {
  const { arrivals } = message;
  if (arrivals.length === 0 || arrivals.length > 0xffff) {
    throw new RangeError(`a feedback message reports 1 to 65535 packets, not ${arrivals.length}`);
  }
  const statuses: PacketStatus[] = [];
  const deltas: number[] = [];
  let previous = message.referenceTime * TICKS_PER_REFERENCE;
  for (const arrival of arrivals) {
    if (arrival === undefined) {
      statuses.push(NOT_RECEIVED);
      continue;
    }
    const delta = arrival - previous;
    previous = arrival;
    if (!Number.isInteger(delta) || delta < MIN_LARGE_DELTA || delta > MAX_LARGE_DELTA) {
      throw new RangeError(`a receive delta of ${delta} ticks does not fit 16 bits`);
    }
    statuses.push(delta >= 0 && delta <= 0xff ? SMALL_DELTA : LARGE_DELTA);
    deltas.push(delta);
  }
  const chunks = encodeChunks(statuses);
  const deltaBytes = deltas.reduce((sum, delta) => sum + (delta >= 0 && delta <= 0xff ? 1 : 2), 0);
  const unpadded = 20 + chunks.length * 2 + deltaBytes;
  const padding = (4 - (unpadded % 4)) % 4;
  const packet = Buffer.alloc(unpadded + padding);
  // As libwebrtc writes it: the P bit set and the last byte counting the padding (RFC 3550).
  packet[0] = 0x80 | (padding > 0 ? 0x20 : 0) | TRANSPORT_CC_FMT;
  packet[1] = RTPFB;
  packet.writeUInt16BE(packet.length / 4 - 1, 2);
  packet.writeUInt32BE(message.senderSsrc >>> 0, 4);
  packet.writeUInt32BE(message.mediaSsrc >>> 0, 8);
  packet.writeUInt16BE(message.baseSequenceNumber & 0xffff, 12);
  packet.writeUInt16BE(arrivals.length, 14);
  packet.writeUIntBE(mod(message.referenceTime, 0x1000000), 16, 3);
  packet[19] = message.feedbackPacketCount & 0xff;
  let offset = 20;
  for (const chunk of chunks) offset = packet.writeUInt16BE(chunk, offset);
  for (const delta of deltas) {
    offset =
      delta >= 0 && delta <= 0xff
        ? packet.writeUInt8(delta, offset)
        : packet.writeInt16BE(delta, offset);
  }
  if (padding > 0) packet[packet.length - 1] = padding;
  return packet;
}

/**
 * Packet status chunks for `statuses`: a run length chunk for a run of 7 or more, else a status
 * vector chunk, of 14 one-bit symbols when they are all "not received" or "small delta", of 7
 * two-bit symbols otherwise. A vector's symbols past the last packet are "not received", which a
 * reader ignores (it stops at the packet status count).
 */
function encodeChunks(statuses: readonly PacketStatus[]): number[] {
  const chunks: number[] = [];
  let index = 0;
  while (index < statuses.length) {
    const status = statuses[index] ?? NOT_RECEIVED;
    let run = 1;
    while (run < MAX_RUN_LENGTH && statuses[index + run] === status) run += 1;
    if (run >= 7) {
      chunks.push((status << 13) | run);
      index += run;
      continue;
    }
    const next14 = statuses.slice(index, index + 14);
    if (next14.every((symbol) => symbol === NOT_RECEIVED || symbol === SMALL_DELTA)) {
      let chunk = 0x8000;
      next14.forEach((symbol, i) => (chunk |= symbol << (13 - i)));
      chunks.push(chunk);
      index += 14;
    } else {
      let chunk = 0xc000;
      statuses.slice(index, index + 7).forEach((symbol, i) => (chunk |= symbol << (12 - 2 * i)));
      chunks.push(chunk);
      index += 7;
    }
  }
  return chunks;
}

export interface DecodedPacketStatus {
  sequenceNumber: number;
  status: PacketStatus;
  /** In 250 µs ticks: the delta from the previous received packet (or the reference time). */
  delta?: number;
  /** In 250 µs ticks in the feedback sender's time base: reference time plus the deltas. */
  arrival?: number;
}

export interface DecodedFeedback {
  senderSsrc: number;
  mediaSsrc: number;
  baseSequenceNumber: number;
  packetStatusCount: number;
  /** Signed, in 64 ms units. */
  referenceTime: number;
  feedbackPacketCount: number;
  chunkKinds: ('run-length' | 'one-bit-vector' | 'two-bit-vector')[];
  packets: DecodedPacketStatus[];
}

/** Reads one transport-wide CC feedback packet, strictly: throws on anything malformed. */
export function decodeTransportFeedback(packet: Uint8Array): DecodedFeedback {
  const data = Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength);
  if (data.length < 20) throw new Error(`too short for a feedback packet: ${data.length} bytes`);
  const first = data.readUInt8(0);
  if (first >> 6 !== 2) throw new Error('not RTP version 2');
  if ((first & 0x1f) !== TRANSPORT_CC_FMT || data[1] !== RTPFB) {
    throw new Error(`not a transport-wide CC feedback: FMT ${first & 0x1f}, PT ${data[1]}`);
  }
  const length = (data.readUInt16BE(2) + 1) * 4;
  if (length !== data.length) {
    throw new Error(`the length field says ${length} bytes, the packet has ${data.length}`);
  }
  let end = data.length;
  if (first & 0x20) {
    const padding = data[data.length - 1] ?? 0;
    if (padding === 0 || padding > data.length - 20) throw new Error(`bad padding: ${padding}`);
    end -= padding;
  }
  const baseSequenceNumber = data.readUInt16BE(12);
  const packetStatusCount = data.readUInt16BE(14);
  const statuses: PacketStatus[] = [];
  const chunkKinds: DecodedFeedback['chunkKinds'] = [];
  let offset = 20;
  while (statuses.length < packetStatusCount) {
    if (offset + 2 > end) throw new Error('the packet ends within its status chunks');
    const chunk = data.readUInt16BE(offset);
    offset += 2;
    if ((chunk & 0x8000) === 0) {
      chunkKinds.push('run-length');
      const status = ((chunk >> 13) & 3) as PacketStatus;
      const run = chunk & MAX_RUN_LENGTH;
      if (run === 0) throw new Error('a run length chunk of length 0');
      for (let i = 0; i < run && statuses.length < packetStatusCount; i++) statuses.push(status);
    } else if ((chunk & 0x4000) === 0) {
      chunkKinds.push('one-bit-vector');
      for (let i = 13; i >= 0 && statuses.length < packetStatusCount; i--) {
        statuses.push(((chunk >> i) & 1) as PacketStatus);
      }
    } else {
      chunkKinds.push('two-bit-vector');
      for (let i = 12; i >= 0 && statuses.length < packetStatusCount; i -= 2) {
        statuses.push(((chunk >> i) & 3) as PacketStatus);
      }
    }
  }
  const referenceTime = data.readIntBE(16, 3);
  let arrival = referenceTime * TICKS_PER_REFERENCE;
  const packets = statuses.map((status, i): DecodedPacketStatus => {
    const sequenceNumber = (baseSequenceNumber + i) & 0xffff;
    if (status === NOT_RECEIVED || status === NO_DELTA) return { sequenceNumber, status };
    const size = status === SMALL_DELTA ? 1 : 2;
    if (offset + size > end) throw new Error('the packet ends within its receive deltas');
    const delta = size === 1 ? data.readUInt8(offset) : data.readInt16BE(offset);
    offset += size;
    arrival += delta;
    return { sequenceNumber, status, delta, arrival };
  });
  if (end - offset > 3) throw new Error(`${end - offset} bytes left after the receive deltas`);
  return {
    senderSsrc: data.readUInt32BE(4),
    mediaSsrc: data.readUInt32BE(8),
    baseSequenceNumber,
    packetStatusCount,
    referenceTime,
    feedbackPacketCount: data[19] ?? 0,
    chunkKinds,
    packets,
  };
}

/** A message closes at this many packets, so that each stays well under an MTU. */
const MAX_STATUSES_PER_MESSAGE = 1000;
const MAX_RECEIVED_PER_MESSAGE = 250;
/** Packets kept after being reported, so that a late one is reported as it arrives. */
const HISTORY = 1000;
/** A window wider than this (a publisher's numbering jumped) starts again at its newest part. */
const MAX_WINDOW = 5000;

interface Arrival {
  ticks: number;
  reported: boolean;
}

/**
 * One publisher connection's transport-wide sequence numbers and arrival times, turned into
 * feedback messages. Sequence numbers are unwrapped from 16 bits; a packet that arrives after
 * its number was reported as not received is reported in the next message, whose base then goes
 * back, with the packets reported before marked "not received" (§3.1.1).
 */
export class TransportCcRecorder {
  private readonly arrivals = new Map<number, Arrival>();
  private newest: number | undefined;
  /** The first sequence number the next message reports. */
  private nextBase: number | undefined;
  private feedbackPacketCount = 0;

  constructor(private readonly senderSsrc: number) {}

  /** A packet with `sequenceNumber` (16 bits) arrived at `arrivalMs` (a monotonic clock). */
  record(sequenceNumber: number, arrivalMs: number): void {
    const unwrapped = this.unwrap(sequenceNumber);
    if (this.nextBase !== undefined && unwrapped < this.nextBase - HISTORY) return;
    if (this.arrivals.has(unwrapped)) return;
    this.arrivals.set(unwrapped, { ticks: Math.round(arrivalMs * TICKS_PER_MS), reported: false });
    if (this.newest === undefined || unwrapped > this.newest) this.newest = unwrapped;
    if (this.nextBase !== undefined && unwrapped < this.nextBase) this.nextBase = unwrapped;
  }

  /** The feedback messages for what arrived since the last call (none if nothing did). */
  takeFeedback(mediaSsrc: number): Buffer<ArrayBuffer>[] {
    const newest = this.newest;
    if (newest === undefined) return [];
    let base = this.nextBase ?? Math.min(...this.arrivals.keys());
    if (base > newest) return [];
    if (newest - base >= MAX_WINDOW) base = newest - MAX_WINDOW + 1;
    const messages: Buffer<ArrayBuffer>[] = [];
    let start = base;
    let arrivals: (number | undefined)[] = [];
    let received = 0;
    let reference = 0;
    let previous = 0;
    const close = () => {
      messages.push(
        encodeTransportFeedback({
          senderSsrc: this.senderSsrc,
          mediaSsrc,
          baseSequenceNumber: start & 0xffff,
          referenceTime: reference,
          feedbackPacketCount: this.feedbackPacketCount,
          arrivals,
        }),
      );
      this.feedbackPacketCount = (this.feedbackPacketCount + 1) & 0xff;
    };
    for (let sequence = base; sequence <= newest; sequence++) {
      const arrival = this.arrivals.get(sequence);
      const ticks = arrival && !arrival.reported ? arrival.ticks : undefined;
      if (arrival) arrival.reported = true;
      if (ticks !== undefined) {
        const full =
          received >= MAX_RECEIVED_PER_MESSAGE ||
          arrivals.length >= MAX_STATUSES_PER_MESSAGE ||
          ticks - previous < MIN_LARGE_DELTA ||
          ticks - previous > MAX_LARGE_DELTA;
        if (received > 0 && full) {
          close();
          start = sequence;
          arrivals = [];
          received = 0;
        }
        // A message's first delta is from its reference time: always a small one.
        if (received === 0) reference = Math.floor(ticks / TICKS_PER_REFERENCE);
        received += 1;
        previous = ticks;
      }
      arrivals.push(ticks);
    }
    if (received > 0) close();
    this.nextBase = newest + 1;
    for (const sequence of this.arrivals.keys()) {
      if (sequence < newest - HISTORY) this.arrivals.delete(sequence);
    }
    return messages;
  }

  private unwrap(sequenceNumber: number): number {
    if (this.newest === undefined) return sequenceNumber & 0xffff;
    return this.newest + int16Difference(sequenceNumber, this.newest);
  }
}

function mod(value: number, modulus: number): number {
  return ((value % modulus) + modulus) % modulus;
}
