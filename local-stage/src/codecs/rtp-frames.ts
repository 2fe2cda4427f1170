/**
 * RTP packets into whole frames for the recorder (docs/decisions/0072-recorder.md): the packets of
 * one RTP timestamp gathered until the next timestamp begins (video) or one per packet (Opus), depacketized
 * by werift into the codec's bitstream (VP8 frames; H.264 in Annex B), each with its time on the
 * track's media clock in ms from the track's first frame. A frame missing a packet is dropped and
 * the track waits for a key frame (it says so, so that one can be asked for): a recording never
 * holds a picture decoded from a broken reference.
 */
import { dePacketizeRtpPackets, type RtpPacket } from 'werift';
import { annexBNalUnits } from './h264';
import { int16Distance } from './sequence';

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
      const step = int16Distance(sequenceNumber, this.lastSequence);
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
