/**
 * A publisher's video as layers: one per simulcast encoding (RTP stream id), or the one encoding
 * of a publisher without simulcast (`rid` null). Each layer knows its SSRC, its picture size (from
 * its key frames: VP8's frame header, H.264's SPS), its bitrate and frame rate, its capture clock and its
 * own key frame requests: a PLI goes to the SSRC of the layer a viewer gets. Which layer a viewer
 * gets is the viewer's side (viewer/layer-choice.ts, viewer/layer-switch.ts).
 */
import { InBandCarriage } from './in-band-carriage';
import type { RtpPacket } from 'werift';
import { H264KeyFrames } from '../../../codecs/h264';
import { h264PacketSize } from '../../../codecs/h264-sps';
import { isVp8KeyFrameStart, vp8KeyFrameSize } from '../../../codecs/vp8';
import { CaptureClock } from './capture-clock';
import type { KeyFrameRequests } from './key-frame-requests';
import { RateWindow } from './rate-window';

/** A layer with no packet for this long has stopped (its encoder paused it, or is gone). */
export const LAYER_SILENT_MS = 500;
/** How long a first choice waits for a publisher's other layers once one began to come. */
export const LAYERS_STARTING_MS = 500;
export const VIDEO_CLOCK_RATE = 90_000;

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
  /** When its packets began to come, after none or a silence of `LAYER_SILENT_MS`. */
  arrivingSince: number | undefined;
  /** Its capture clock, from the publisher's sender reports for its SSRC. */
  readonly clock = new CaptureClock(VIDEO_CLOCK_RATE);
  /** Key frame requests to this layer's SSRC, coalesced and rate-limited. */
  readonly keyFrames: KeyFrameRequests;
  /** In-band messages waiting for its frames (VP8's trailer: in-band-carriage.ts). */
  readonly inBand = new InBandCarriage(this.clock);
  /** Whether the frame being received (its packets so far) is a key frame. */
  frameIsKey = false;
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

  /** Whether its payloads are VP8's (their descriptors number the pictures: codecs/vp8.ts). */
  get isVp8(): boolean {
    return this.mimeType === 'video/VP8';
  }

  /** Takes in a packet of this layer; whether it opens a key frame. */
  receive(packet: RtpPacket, now: number): boolean {
    const { payload, header } = packet;
    this.packets += 1;
    this.ssrc = header.ssrc;
    if (!this.arriving(now)) this.arrivingSince = now;
    this.lastPacketAt = now;
    const newFrame = header.timestamp !== this.lastTimestamp;
    if (newFrame) this.frameIsKey = false;
    this.lastTimestamp = header.timestamp;
    this.rates.add(now, payload.length, newFrame ? 1 : 0);
    const keyFrameStart =
      this.mimeType === 'video/H264'
        ? this.h264KeyFrames.opens(payload, header.timestamp)
        : isVp8KeyFrameStart(payload);
    if (keyFrameStart) {
      this.frameIsKey = true;
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

  /** Whether its packets are coming (one within `LAYER_SILENT_MS`, or within `withinMs`). */
  arriving(now: number, withinMs = LAYER_SILENT_MS): boolean {
    return this.lastPacketAt !== undefined && now - this.lastPacketAt <= withinMs;
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

  /** Its packets a second now (each a chance to be lost on the viewer's line). */
  packetRate(now: number): number {
    return this.rates.rates(now).packetRate;
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

  /** The layer of `rid` while it arrives: a viewer's own choice holds only then. */
  preferred(rid: string | null | undefined, now: number): VideoLayer | undefined {
    if (rid === undefined || rid === null) return undefined;
    const layer = this.byRid(rid);
    return layer?.arriving(now) ? layer : undefined;
  }

  /**
   * The highest layer arriving, as of the last `update`. A publisher with one layer always has
   * it (nothing to choose; today's behaviour before its first packet too).
   */
  get best(): VideoLayer | undefined {
    return this.all.length === 1 ? this.all[0] : this.bestValue;
  }

  /**
   * Whether the layers are starting: the ones arriving all began under `LAYERS_STARTING_MS` ago
   * and another has yet to come. A camera waking sends its lowest layer's key frame first and
   * the highest 100 ms later: a first choice waits for it
   * (docs/decisions/0101-a-first-layer-after-the-publishers-start.md).
   */
  starting(now: number): boolean {
    let arriving = 0;
    for (const layer of this.all) {
      if (!layer.arriving(now)) continue;
      if (now - (layer.arrivingSince ?? now) >= LAYERS_STARTING_MS) return false;
      arriving += 1;
    }
    return arriving > 0 && arriving < this.all.length;
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

/** The layers arriving, highest first. */
export function arrivingLayers(layers: VideoLayers, now: number): VideoLayer[] {
  return layers.all
    .filter((layer) => layer.arriving(now))
    .sort((a, b) => (isHigher(a, b, now) ? -1 : isHigher(b, a, now) ? 1 : 0));
}
