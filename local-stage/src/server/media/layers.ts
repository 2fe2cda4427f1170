/**
 * A publisher's video as layers: one per simulcast encoding (RTP stream id), or the one encoding
 * of a publisher without simulcast (`rid` null). Each layer knows its SSRC, its picture size (from
 * its key frames: VP8's frame header, H.264's SPS), its bitrate and frame rate, its capture clock and its
 * own key frame requests: a PLI goes to the SSRC of the layer a viewer gets.
 *
 * Which layer a viewer gets is a `LayerSwitch` per viewer, given a choice (today every viewer's
 * is `VideoLayers.best`: the highest layer arriving; issue 28 gives each viewer its own). It
 * changes layer only at a key frame of the new one, and rewrites sequence numbers and timestamps
 * so the viewer sees one continuous stream on its one SSRC (docs/decisions/0067-simulcast-in.md).
 */
import type { RtpPacket } from 'werift';
import { CaptureClock } from './capture-clock';
import { H264KeyFrames } from './h264';
import { h264PacketSize } from './h264-sps';
import type { KeyFrameRequests } from './key-frame-requests';
import { isVp8KeyFrameStart, vp8KeyFrameSize } from './vp8';

/** A layer with no packet for this long has stopped (its encoder paused it, or is gone). */
export const LAYER_SILENT_MS = 500;
/** The rates are the mean over this window, in buckets of `RATE_BUCKET_MS`. */
const RATE_WINDOW_MS = 2_000;
const RATE_BUCKET_MS = 100;
const RATE_BUCKETS = RATE_WINDOW_MS / RATE_BUCKET_MS;
const VIDEO_CLOCK_RATE = 90_000;
const TWO_TO_32 = 2 ** 32;

/** What a layer is, for the stats and for choosing one. */
export interface LayerFigures {
  /** Its RTP stream id; null for a publisher without simulcast. */
  rid: string | null;
  ssrc: number | null;
  /** From its latest key frame (VP8's frame header, H.264's SPS); null before one. */
  width: number | null;
  height: number | null;
  /** Bits a second of RTP payload, over the last 2 s. */
  bitrate: number;
  /** Frames a second (RTP timestamps seen), over the last 2 s. */
  frameRate: number;
}

/** Bytes and frames over the last `RATE_WINDOW_MS`, in buckets (no allocation per packet). */
class RateWindow {
  private readonly bytes = new Float64Array(RATE_BUCKETS);
  private readonly frames = new Float64Array(RATE_BUCKETS);
  private readonly stamps = new Float64Array(RATE_BUCKETS).fill(-1);

  add(now: number, bytes: number, frames: number): void {
    const bucket = Math.floor(now / RATE_BUCKET_MS);
    const index = bucket % RATE_BUCKETS;
    if (this.stamps[index] !== bucket) {
      this.stamps[index] = bucket;
      this.bytes[index] = 0;
      this.frames[index] = 0;
    }
    this.bytes[index] = (this.bytes[index] ?? 0) + bytes;
    this.frames[index] = (this.frames[index] ?? 0) + frames;
  }

  /** Bits and frames a second over the window ending now. */
  rates(now: number): { bitrate: number; frameRate: number } {
    const newest = Math.floor(now / RATE_BUCKET_MS);
    let bytes = 0;
    let frames = 0;
    for (let index = 0; index < RATE_BUCKETS; index += 1) {
      const stamp = this.stamps[index] ?? -1;
      if (stamp > newest - RATE_BUCKETS && stamp <= newest) {
        bytes += this.bytes[index] ?? 0;
        frames += this.frames[index] ?? 0;
      }
    }
    const seconds = RATE_WINDOW_MS / 1000;
    return { bitrate: Math.round((bytes * 8) / seconds), frameRate: frames / seconds };
  }
}

export class VideoLayer {
  readonly rid: string | null;
  ssrc: number | undefined;
  width: number | undefined;
  height: number | undefined;
  /** Video packets received (padding excluded). */
  packets = 0;
  keyFramesSeen = 0;
  /** When its last packet came (performance.now), if one has. */
  lastPacketAt: number | undefined;
  /** Its capture clock, from the publisher's sender reports for its SSRC. */
  readonly clock = new CaptureClock(VIDEO_CLOCK_RATE);
  /** Key frame requests to this layer's SSRC, coalesced and rate-limited. */
  readonly keyFrames: KeyFrameRequests;
  private readonly mimeType: string;
  private readonly h264KeyFrames = new H264KeyFrames();
  private readonly rates = new RateWindow();
  private lastTimestamp: number | undefined;

  constructor(options: {
    rid: string | null;
    mimeType: string;
    keyFrames: (layer: VideoLayer) => KeyFrameRequests;
  }) {
    this.rid = options.rid;
    this.mimeType = options.mimeType;
    this.keyFrames = options.keyFrames(this);
  }

  /** Takes in a packet of this layer; whether it opens a key frame. */
  receive(packet: RtpPacket, now: number): boolean {
    const { payload, header } = packet;
    this.packets += 1;
    this.ssrc = header.ssrc;
    this.lastPacketAt = now;
    const newFrame = header.timestamp !== this.lastTimestamp;
    this.lastTimestamp = header.timestamp;
    this.rates.add(now, payload.length, newFrame ? 1 : 0);
    const keyFrameStart =
      this.mimeType === 'video/H264'
        ? this.h264KeyFrames.opens(payload, header.timestamp)
        : isVp8KeyFrameStart(payload);
    if (keyFrameStart) {
      this.keyFramesSeen += 1;
      this.keyFrames.keyFrameArrived();
      const size =
        this.mimeType === 'video/VP8' ? vp8KeyFrameSize(payload) : h264PacketSize(payload);
      if (size) {
        this.width = size.width;
        this.height = size.height;
      }
    }
    return keyFrameStart;
  }

  /** Whether its packets are coming (one within `LAYER_SILENT_MS`). */
  arriving(now: number): boolean {
    return this.lastPacketAt !== undefined && now - this.lastPacketAt <= LAYER_SILENT_MS;
  }

  figures(now = performance.now()): LayerFigures {
    const { bitrate, frameRate } = this.rates.rates(now);
    return {
      rid: this.rid,
      ssrc: this.ssrc ?? null,
      width: this.width ?? null,
      height: this.height ?? null,
      bitrate,
      frameRate: Math.round(frameRate * 10) / 10,
    };
  }

  /** Its bits a second now (for ranking layers whose size is unknown). */
  bitrate(now: number): number {
    return this.rates.rates(now).bitrate;
  }
}

/** Whether `a` is a higher layer than `b`: more pixels when both sizes are known, else more bits. */
export function isHigher(a: VideoLayer, b: VideoLayer, now: number): boolean {
  if (
    a.width !== undefined &&
    a.height !== undefined &&
    b.width !== undefined &&
    b.height !== undefined
  ) {
    const pixels = a.width * a.height - b.width * b.height;
    if (pixels !== 0) return pixels > 0;
  }
  return a.bitrate(now) > b.bitrate(now);
}

/** A publisher's video layers, and the highest one arriving now. */
export class VideoLayers {
  readonly all: readonly VideoLayer[];
  private bestValue: VideoLayer | undefined;

  constructor(layers: VideoLayer[]) {
    this.all = layers;
  }

  /** The layer of `rid` (null: the one layer of a publisher without simulcast). */
  byRid(rid: string | null): VideoLayer | undefined {
    return this.all.find((layer) => layer.rid === rid);
  }

  bySsrc(ssrc: number): VideoLayer | undefined {
    return this.all.find((layer) => layer.ssrc === ssrc);
  }

  /**
   * The highest layer arriving, as of the last `update`. A publisher with one layer always has
   * it (nothing to choose; today's behaviour before its first packet too).
   */
  get best(): VideoLayer | undefined {
    return this.all.length === 1 ? this.all[0] : this.bestValue;
  }

  /** Chooses the best layer again (at each packet: a handful of layers, no allocation). */
  update(now: number): void {
    let best: VideoLayer | undefined;
    for (const layer of this.all) {
      if (layer.arriving(now) && (best === undefined || isHigher(layer, best, now))) best = layer;
    }
    this.bestValue = best;
  }
}

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
  private readonly target: () => VideoLayer | undefined;
  private readonly askKeyFrame: (layer: VideoLayer) => void;
  private sequenceOffset = 0;
  private timestampOffset = 0;
  /**
   * The current layer's first sequence number, while its packets from before it may still come
   * (they are not forwarded: their numbers belong to the layer before).
   */
  private firstSequence: number | undefined;
  private last: { sequence: number; timestamp: number; at: number } | undefined;

  constructor(options: {
    target: () => VideoLayer | undefined;
    askKeyFrame: (layer: VideoLayer) => void;
  }) {
    this.target = options.target;
    this.askKeyFrame = options.askKeyFrame;
  }

  /** The layer whose key frame the viewer needs: the one it is moving to, else the one it gets. */
  get wanted(): VideoLayer | undefined {
    return this.pending ?? this.current ?? this.target();
  }

  /**
   * Whether `packet` of `layer` goes to the viewer; if it does, its sequence number and timestamp
   * are rewritten in place (the packet is the viewer's own copy).
   */
  accept(packet: RtpPacket, layer: VideoLayer, keyFrameStart: boolean, now: number): boolean {
    const target = this.target();
    if (target !== undefined && target !== this.current && target !== this.pending) {
      this.pending = target;
      // The first layer's key frame is the join's to ask for (the subscription asks at once).
      if (this.current !== undefined) this.askKeyFrame(target);
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
    if (this.last === undefined || int16Difference(header.sequenceNumber, this.last.sequence) > 0) {
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

  /** From `packet` (a key frame's first) on, `layer` is forwarded, continuing the last one. */
  private moveTo(layer: VideoLayer, packet: RtpPacket, now: number): void {
    const previous = this.current;
    const last = this.last;
    const epochMs = Date.now();
    // The old layer's clock as the viewer has it, before the offsets change.
    const viewerNow = this.rtpTimestampAt(epochMs);
    this.pending = undefined;
    this.current = layer;
    if (previous === undefined || last === undefined) {
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
  }
}

/** Packets of a layer from before its key frame may come this many packets late, at most. */
const REORDER_WINDOW = 1_000;

const mod32 = (value: number) => ((value % TWO_TO_32) + TWO_TO_32) % TWO_TO_32;

/** `a − b` for 16-bit sequence numbers, across the wrap: negative when `a` comes before `b`. */
function int16Difference(a: number, b: number): number {
  const difference = (a - b) & 0xffff;
  return difference >= 0x8000 ? difference - 0x10000 : difference;
}

/** `a − b` for 32-bit RTP timestamps, across the wrap. */
function int32Difference(a: number, b: number): number {
  const difference = mod32(a - b);
  return difference >= 2 ** 31 ? difference - TWO_TO_32 : difference;
}
