/**
 * One viewer's layer: it changes only at a key frame of the new one, and sequence numbers,
 * timestamps and VP8's picture numbers are rewritten so the viewer sees one continuous stream on
 * its one SSRC (docs/decisions/0067-simulcast-in.md,
 * docs/decisions/0107-vp8-pictures-numbered-on.md). The layer it moves to is the viewer's choice
 * (layer-choice.ts, viewer-adaptation.ts).
 */
import type { RtpPacket } from 'werift';
import { int16Difference, int32Difference, mod32, TWO_TO_32 } from '../../../codecs/sequence';
import { renumberVp8, vp8Numbering, type Vp8Numbering } from '../../../codecs/vp8';
import { isHigher, VIDEO_CLOCK_RATE, type VideoLayer } from '../publisher/video-layers';

/** Packets of a layer from before its key frame may come this many packets late, at most. */
const REORDER_WINDOW = 1_000;

/**
 * One viewer's layer: forwards the packets of one layer at a time, moving to the layer `target()`
 * names only at a key frame of it (asked for at once), with the viewer's sequence numbers and
 * timestamps continuous across the move. Until the first move they are the publisher's own, so a
 * publisher without simulcast is forwarded exactly as it sends.
 */
export class LayerSwitch {
  /** The layer forwarded now. */
  current: VideoLayer | undefined;
  /** Moves from one layer to another. */
  switches = 0;
  private pending: VideoLayer | undefined;
  /** Undefined: no layer to choose yet (the current one is kept); null: none (video paused). */
  private readonly target: () => VideoLayer | null | undefined;
  private readonly askKeyFrame: (layer: VideoLayer) => void;
  private readonly moveDownAtOnce: () => boolean;
  private sequenceOffset = 0;
  private timestampOffset = 0;
  /**
   * The current layer's first sequence number, while its packets from before it may still come
   * (they are not forwarded: their numbers belong to the layer before).
   */
  private firstSequence: number | undefined;
  private last: { sequence: number; timestamp: number; at: number } | undefined;
  /**
   * VP8's picture ID and TL0PICIDX are each encoding's own, from a random start: a viewer's
   * decoder orders frames and finds their references by them, so they continue across a move as
   * the sequence numbers do (docs/decisions/0107-vp8-pictures-numbered-on.md).
   */
  private pictureIdShift = 0;
  private tl0Shift = 0;
  /** The newest VP8 frame's numbering, as the viewer got it. */
  private lastNumbering: Vp8Numbering | undefined;

  constructor(options: {
    target: () => VideoLayer | null | undefined;
    askKeyFrame: (layer: VideoLayer) => void;
    /**
     * Whether a move down stops the layer above at its next frame (the default: the move is the
     * estimate's, and the viewer's link is short); false while the viewer chose the layer, whose
     * picture then goes on until the lower layer's key frame (decision 0069).
     */
    moveDownAtOnce?: () => boolean;
  }) {
    this.target = options.target;
    this.askKeyFrame = options.askKeyFrame;
    this.moveDownAtOnce = options.moveDownAtOnce ?? (() => true);
  }

  /** The layer whose key frame the viewer needs: the one it is moving to, else the one it gets. */
  get wanted(): VideoLayer | undefined {
    return this.pending ?? this.current ?? this.target() ?? undefined;
  }

  /** The layer forwarded now, or the one being moved to; no choice is made to tell it. */
  get forwarding(): VideoLayer | undefined {
    return this.pending ?? this.current;
  }

  /** Whether no layer is forwarded because none is chosen (the viewer's picture stays as it was). */
  get paused(): boolean {
    return this.current === undefined && this.last !== undefined && this.pending === undefined;
  }

  /**
   * Whether `packet` of `layer` goes to the viewer; if it does, its sequence number and timestamp
   * are rewritten in place (the packet is the viewer's own copy).
   */
  accept(packet: RtpPacket, layer: VideoLayer, keyFrameStart: boolean, now: number): boolean {
    const target = this.target();
    if (target === null) {
      this.pending = undefined;
      // Paused at a frame's first packet, never inside one: the viewer keeps a whole picture.
      if (layer === this.current && this.startsFrame(packet)) this.current = undefined;
    } else if (target !== undefined && target !== this.current && target !== this.pending) {
      this.pending = target;
      // The first layer's key frame is the join's to ask for (the subscription asks at once).
      if (this.last !== undefined) this.askKeyFrame(target);
    } else if (target !== undefined && target === this.current) {
      // Back to the layer forwarded before the move was made: the move is off.
      this.pending = undefined;
    }
    // Moving down for the link: the layer above is no longer sent (from its next frame), so that
    // what is queued toward a congested viewer drains and the lower layer's key frame gets through.
    // A move down the viewer chose goes on forwarding it, and its key frame's first packet may
    // then cut one of its frames short: the viewer drops that frame, as at a move up.
    if (
      layer === this.current &&
      this.pending !== undefined &&
      isHigher(layer, this.pending, now) &&
      this.startsFrame(packet) &&
      this.moveDownAtOnce()
    ) {
      this.current = undefined;
    }
    if (layer === this.pending && keyFrameStart) this.moveTo(layer, packet, now);
    if (layer !== this.current) return false;
    const header = packet.header;
    if (this.firstSequence !== undefined) {
      const sinceFirst = int16Difference(header.sequenceNumber, this.firstSequence);
      if (sinceFirst < 0) return false;
      if (sinceFirst > REORDER_WINDOW) this.firstSequence = undefined;
    }
    header.sequenceNumber = (header.sequenceNumber + this.sequenceOffset) & 0xffff;
    header.timestamp = (header.timestamp + this.timestampOffset) % TWO_TO_32;
    if (layer.isVp8 && (this.pictureIdShift !== 0 || this.tl0Shift !== 0)) {
      packet.payload = renumberVp8(packet.payload, this.pictureIdShift, this.tl0Shift);
    }
    if (this.last === undefined || int16Difference(header.sequenceNumber, this.last.sequence) > 0) {
      // Read once a frame: each of its packets carries the frame's numbers.
      if (layer.isVp8 && header.timestamp !== this.last?.timestamp) {
        this.lastNumbering = vp8Numbering(packet.payload) ?? this.lastNumbering;
      }
      this.last = { sequence: header.sequenceNumber, timestamp: header.timestamp, at: now };
    }
    return true;
  }

  /**
   * The viewer's RTP timestamp for the stage-clock time `epochMs` (for its sender reports): the
   * current layer's capture clock, moved as its packets are.
   */
  rtpTimestampAt(epochMs: number): number | undefined {
    const timestamp = this.current?.clock.rtpTimestampAt(epochMs);
    return timestamp === undefined ? undefined : (timestamp + this.timestampOffset) % TWO_TO_32;
  }

  /** Whether `packet` of the current layer begins a frame after the last one forwarded. */
  private startsFrame(packet: RtpPacket): boolean {
    if (this.last === undefined) return true;
    const timestamp = (packet.header.timestamp + this.timestampOffset) % TWO_TO_32;
    return timestamp !== this.last.timestamp;
  }

  /** From `packet` (a key frame's first) on, `layer` is forwarded, continuing the last one. */
  private moveTo(layer: VideoLayer, packet: RtpPacket, now: number): void {
    const last = this.last;
    const epochMs = Date.now();
    // The old layer's clock as the viewer has it, before the offsets change.
    const viewerNow = this.rtpTimestampAt(epochMs);
    this.pending = undefined;
    this.current = layer;
    if (last === undefined) {
      // The first layer: its own numbers, all of them (nothing forwarded yet to continue).
      this.firstSequence = undefined;
      this.sequenceOffset = 0;
      this.timestampOffset = 0;
      return;
    }
    this.firstSequence = packet.header.sequenceNumber;
    this.switches += 1;
    const { sequenceNumber, timestamp } = packet.header;
    this.sequenceOffset = (last.sequence + 1 - sequenceNumber) & 0xffff;
    const elapsed = Math.max(1, Math.round(((now - last.at) * VIDEO_CLOCK_RATE) / 1000));
    let continued = mod32(last.timestamp + elapsed);
    // Better, where both layers' clocks are known from sender reports (libwebrtc stamps every
    // layer from one capture time, each from its own random start): the key frame's capture
    // instant on the viewer's clock, as far before now as it is on the new layer's.
    const layerNow = layer.clock.rtpTimestampAt(epochMs);
    if (viewerNow !== undefined && layerNow !== undefined) {
      const byClock = mod32(viewerNow - int32Difference(layerNow, timestamp));
      if (int32Difference(byClock, last.timestamp) > 0) continued = byClock;
    }
    this.timestampOffset = mod32(continued - timestamp);
    this.continueNumbering(layer, packet);
  }

  /** The shifts that make `packet` (the new layer's key frame) the picture after the last one. */
  private continueNumbering(layer: VideoLayer, packet: RtpPacket): void {
    const last = this.lastNumbering;
    const key = layer.isVp8 ? vp8Numbering(packet.payload) : undefined;
    this.pictureIdShift = 0;
    this.tl0Shift = 0;
    if (!key || !last) return;
    if (key.pictureId !== undefined && last.pictureId !== undefined) {
      const modulo = key.pictureIdBits === 15 ? 0x8000 : 0x80;
      this.pictureIdShift = (((last.pictureId + 1 - key.pictureId) % modulo) + modulo) % modulo;
    }
    // The key frame is a base layer frame: the one after the last.
    if (key.tl0PicIdx !== undefined && last.tl0PicIdx !== undefined) {
      this.tl0Shift = (last.tl0PicIdx + 1 - key.tl0PicIdx) & 0xff;
    }
  }
}
