/**
 * RTP packets into whole frames for the recorder (docs/decisions/0072-recorder.md): the packets of
 * one RTP timestamp gathered until the next timestamp begins (video) or one per packet (Opus), depacketized
 * by werift into the codec's bitstream (VP8 frames; H.264 in Annex B), each with its time on the
 * track's media clock in ms from the track's first frame. A frame missing a packet is dropped and
 * the track waits for a key frame (it says so, so that one can be asked for): a recording never
 * holds a picture decoded from a broken reference.
 */
import { dePacketizeRtpPackets, type RtpPacket } from 'werift';

export type TrackCodec = 'vp8' | 'h264' | 'opus';

export interface Frame {
  data: Buffer;
  keyFrame: boolean;
  /** On the track's media clock, ms from its first frame. */
  timeMs: number;
}

const WERIFT_CODEC = { vp8: 'VP8', h264: 'MPEG4/ISO/AVC', opus: 'OPUS' } as const;
/** A frame spread over more packets than this is not one we take (a 1080p key frame is ~200). */
const MAX_PACKETS_PER_FRAME = 2_000;

export class FrameAssembler {
  private packets: RtpPacket[] = [];
  private firstTimestamp: number | undefined;
  /** The last RTP timestamp, unwrapped (32-bit timestamps wrap every 13 h at 90 kHz). */
  private lastUnwrapped: number | undefined;
  private lastSequence: number | undefined;
  private waitingForKeyFrame = true;
  /** No packet of the frame being gathered is missing (that we can tell). */
  private frameIsWhole = true;

  constructor(
    readonly codec: TrackCodec,
    private readonly clockRate: number,
    private readonly onFrame: (frame: Frame) => void,
    /** A frame was lost: the track waits for a key frame. */
    private readonly onNeedKeyFrame: () => void = () => undefined,
  ) {}

  push(packet: RtpPacket): void {
    const { sequenceNumber, timestamp } = packet.header;
    if (this.lastSequence !== undefined) {
      const step = (sequenceNumber - this.lastSequence) & 0xffff;
      if (step === 0 || step > 0x8000) return; // a duplicate or a late packet: already past it
      if (step > 1) {
        // Lost between the frame being gathered and this packet: that frame is broken unless
        // this packet begins a new one (then the loss is of the old one's tail: broken too).
        this.frameIsWhole = false;
        if (this.codec === 'opus') this.lost();
      }
    }
    this.lastSequence = sequenceNumber;
    // Padding (the stage's probes): counted in the sequence, carries nothing.
    if (packet.payload.length === 0) return;
    if (this.codec === 'opus') {
      this.emit([packet]);
      return;
    }
    // A frame is emitted when the next one begins, not on its marker bit: padding packets follow
    // a marker with the frame's timestamp, and one frame's delay costs a recording nothing.
    const current = this.packets[0];
    if (current && current.header.timestamp !== timestamp) {
      const packets = this.packets;
      this.packets = [];
      if (this.frameIsWhole) this.emit(packets);
      else this.lost();
      this.frameIsWhole = true;
    }
    this.packets.push(packet);
    if (this.packets.length > MAX_PACKETS_PER_FRAME) {
      this.frameIsWhole = false;
      this.packets = [];
    }
  }

  private lost(): void {
    this.packets = [];
    if (this.codec === 'opus') return; // audio frames stand alone
    if (!this.waitingForKeyFrame) {
      this.waitingForKeyFrame = true;
      this.onNeedKeyFrame();
    }
  }

  private emit(packets: RtpPacket[]): void {
    const first = packets[0];
    if (!first) return;
    let frame: { data: Buffer; isKeyframe: boolean };
    try {
      frame = dePacketizeRtpPackets(WERIFT_CODEC[this.codec], packets);
    } catch {
      this.lost();
      return;
    }
    if (frame.data.length === 0) return;
    const keyFrame = this.codec === 'opus' ? true : isKeyFrame(this.codec, frame.data);
    if (this.waitingForKeyFrame && this.codec !== 'opus') {
      if (!keyFrame) return;
      this.waitingForKeyFrame = false;
    }
    const unwrapped = this.unwrap(first.header.timestamp);
    this.firstTimestamp ??= unwrapped;
    this.onFrame({
      data: frame.data,
      keyFrame,
      timeMs: ((unwrapped - this.firstTimestamp) * 1000) / this.clockRate,
    });
  }

  private unwrap(timestamp: number): number {
    if (this.lastUnwrapped === undefined) {
      this.lastUnwrapped = timestamp;
      return timestamp;
    }
    const delta = ((timestamp - this.lastUnwrapped) | 0) as number; // signed 32-bit difference
    this.lastUnwrapped += delta;
    return this.lastUnwrapped;
  }
}

/** Whether a depacketized frame is a key frame (VP8: its frame tag; H.264: an IDR slice). */
export function isKeyFrame(codec: 'vp8' | 'h264', data: Uint8Array): boolean {
  if (codec === 'vp8') return ((data[0] ?? 1) & 0x01) === 0;
  return annexBNalUnits(data).some((nal) => ((nal[0] ?? 0) & 0x1f) === 5);
}

/** The NAL units of an Annex B stream (start codes of 3 or 4 bytes). */
export function annexBNalUnits(data: Uint8Array): Uint8Array[] {
  const units: Uint8Array[] = [];
  let start = -1;
  for (let index = 0; index + 2 < data.length; index += 1) {
    if (data[index] === 0 && data[index + 1] === 0 && data[index + 2] === 1) {
      if (start >= 0) {
        let end = index;
        if (end > start && data[end - 1] === 0) end -= 1;
        units.push(data.subarray(start, end));
      }
      start = index + 3;
      index += 2;
    }
  }
  if (start >= 0 && start < data.length) units.push(data.subarray(start));
  return units;
}

/** A VP8 key frame's picture size (RFC 6386 9.1); undefined for an inter frame. */
export function vp8FrameSize(data: Uint8Array): { width: number; height: number } | undefined {
  if (((data[0] ?? 1) & 0x01) !== 0) return undefined;
  if (data[3] !== 0x9d || data[4] !== 0x01 || data[5] !== 0x2a || data.length < 10)
    return undefined;
  return {
    width: ((data[6] ?? 0) | ((data[7] ?? 0) << 8)) & 0x3fff,
    height: ((data[8] ?? 0) | ((data[9] ?? 0) << 8)) & 0x3fff,
  };
}

/** The RFC 6381 codec string of an H.264 stream from its SPS (`avc1.PPCCLL`). */
export function avcCodecString(sps: Uint8Array): string {
  const hex = (byte: number | undefined) => (byte ?? 0).toString(16).padStart(2, '0');
  return `avc1.${hex(sps[1])}${hex(sps[2])}${hex(sps[3])}`;
}

/** Frame sizes in tenths of a millisecond by TOC configuration (RFC 6716 3.1, Table 2). */
const OPUS_FRAME_TENTHS_MS = [
  ...[100, 200, 400, 600, 100, 200, 400, 600, 100, 200, 400, 600], // SILK NB, MB, WB
  ...[100, 200, 100, 200], // Hybrid SWB, FB
  ...[25, 50, 100, 200, 25, 50, 100, 200, 25, 50, 100, 200, 25, 50, 100, 200], // CELT
];

/**
 * How long an Opus packet plays (RFC 6716 3.1: its TOC byte's frame size times its frame count),
 * in ms; undefined for a packet too short to say. A browser times Opus in WebM by this, not by
 * the gap to the next packet, so a recording's audio must be written with it.
 */
export function opusPacketDurationMs(packet: Uint8Array): number | undefined {
  const toc = packet[0];
  if (toc === undefined) return undefined;
  const frameMs = (OPUS_FRAME_TENTHS_MS[toc >> 3] ?? 200) / 10;
  const code = toc & 0x03;
  if (code === 0) return frameMs;
  if (code !== 3) return 2 * frameMs;
  const count = (packet[1] ?? 0) & 0x3f;
  return count === 0 ? undefined : count * frameMs;
}
