/**
 * RTP packets into whole frames, for the recorder (docs/decisions/0072-recorder.md) and the
 * thumbnail process (docs/decisions/0070-thumbnails.md): one RTP timestamp's packets, from the one
 * that opens the frame to the one with the marker bit, depacketized by werift into the codec's
 * bitstream (VP8 frames; H.264 in Annex B), each timed on the track's media clock in ms from the
 * track's first frame; Opus one frame a packet.
 *
 * A broken frame is dropped whole, never given in part, and the track then waits for a key frame
 * (it says so, so that one can be asked for): a recording never holds a picture decoded from a
 * broken reference, a thumbnail never half a picture. Broken is a packet missing (a gap in the
 * sequence numbers breaks the frame being gathered and the one the next packet belongs to, whose
 * first packets may be the lost ones), the next timestamp beginning before the marker, a VP8
 * frame whose first packet does not open it, or H.264 payloads that are not whole NAL units
 * (`h264PayloadsWhole`: an FU-A without its start, a STAP-A whose sizes overrun, the F bit).
 */
import { dePacketizeRtpPackets, type RtpPacket } from 'werift';
import { annexBNalUnits, h264PayloadsWhole } from './h264';
import { int16Distance, int32Difference } from './sequence';
import { opensVp8Frame } from './vp8';

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
/** While waiting for a key frame, it is asked for again after this long (media clock). */
const ASK_AGAIN_S = 1;

export class FrameAssembler {
  /** The packets of the frame being gathered, all of one timestamp, its marker not yet seen. */
  private packets: RtpPacket[] = [];
  /** Packets of this timestamp are dropped: their frame is broken. */
  private brokenTimestamp: number | undefined;
  private firstTimestamp: number | undefined;
  /** The last RTP timestamp, unwrapped (32-bit timestamps wrap every 13 h at 90 kHz). */
  private lastUnwrapped: number | undefined;
  private lastSequence: number | undefined;
  private waitingForKeyFrame = true;
  /** The RTP timestamp when a key frame was last asked for (or the first one's, asked at join). */
  private askedAt: number | undefined;

  constructor(
    readonly codec: TrackCodec,
    private readonly clockRate: number,
    private readonly onFrame: (frame: Frame) => void,
    /** A frame was lost: the track waits for a key frame. */
    private readonly onNeedKeyFrame: () => void = () => undefined,
  ) {}

  push(packet: RtpPacket): void {
    const { sequenceNumber, timestamp, marker } = packet.header;
    let gap = false;
    if (this.lastSequence !== undefined) {
      const step = int16Distance(sequenceNumber, this.lastSequence);
      if (step === 0 || step > 0x8000) return; // a duplicate or a late packet: already past it
      gap = step > 1;
    }
    this.lastSequence = sequenceNumber;
    this.askedAt ??= timestamp;
    if (this.codec === 'opus') {
      if (packet.payload.length > 0) this.emit([packet]);
      return;
    }
    if (gap) this.breakFrame(timestamp, timestamp);
    // Padding (the stage's probes): counted in the sequence, carries nothing.
    if (packet.payload.length === 0 || timestamp === this.brokenTimestamp) return;
    this.brokenTimestamp = undefined;
    const current = this.packets[0];
    if (current && current.header.timestamp !== timestamp) this.breakFrame(undefined, timestamp);
    this.packets.push(packet);
    if (this.packets.length > MAX_PACKETS_PER_FRAME) return this.breakFrame(timestamp, timestamp);
    if (!marker) return;
    const packets = this.packets;
    this.packets = [];
    if (this.whole(packets)) this.emit(packets);
    else this.lost(timestamp);
  }

  /** The frame being gathered is lost, and so are the packets still to come of `timestamp`. */
  private breakFrame(broken: number | undefined, timestamp: number): void {
    this.brokenTimestamp = broken;
    this.lost(timestamp);
  }

  private whole(packets: RtpPacket[]): boolean {
    const payloads = packets.map((packet) => packet.payload);
    if (this.codec === 'vp8') return opensVp8Frame(payloads[0] ?? new Uint8Array());
    return h264PayloadsWhole(payloads);
  }

  /** A frame is lost at `timestamp`: the track waits for a key frame and asks for one. */
  private lost(timestamp: number): void {
    this.packets = [];
    if (!this.waitingForKeyFrame) {
      this.waitingForKeyFrame = true;
      this.ask(timestamp);
    } else this.stillWaiting(timestamp);
  }

  /** Still no key frame: asked again once the last ask is ASK_AGAIN_S old (it may have been lost). */
  private stillWaiting(timestamp: number): void {
    const since = int32Difference(timestamp, this.askedAt ?? timestamp);
    if (since >= ASK_AGAIN_S * this.clockRate || since < 0) this.ask(timestamp);
  }

  private ask(timestamp: number): void {
    this.askedAt = timestamp;
    this.onNeedKeyFrame();
  }

  private emit(packets: RtpPacket[]): void {
    const first = packets[0];
    if (!first) return;
    let frame: { data: Buffer; isKeyframe: boolean };
    try {
      frame = dePacketizeRtpPackets(WERIFT_CODEC[this.codec], packets);
    } catch {
      if (this.codec !== 'opus') this.lost(first.header.timestamp);
      return;
    }
    if (frame.data.length === 0) return;
    const keyFrame = this.codec === 'opus' ? true : isKeyFrame(this.codec, frame.data);
    if (this.waitingForKeyFrame && this.codec !== 'opus') {
      if (!keyFrame) return this.stillWaiting(first.header.timestamp);
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
