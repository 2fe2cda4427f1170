/** Bytes, frames and packets a second over a sliding window: a layer's rates, a viewer's. */

/** A layer's rates are the mean over this window, in buckets of `RATE_BUCKET_MS`. */
const RATE_WINDOW_MS = 2_000;
const RATE_BUCKET_MS = 100;

/** Bytes and frames over the last `windowMs`, in buckets (no allocation per packet). */
export class RateWindow {
  private readonly buckets: number;
  private readonly bytes: Float64Array;
  private readonly frames: Float64Array;
  private readonly packets: Float64Array;
  private readonly stamps: Float64Array;

  constructor(private readonly windowMs = RATE_WINDOW_MS) {
    this.buckets = windowMs / RATE_BUCKET_MS;
    this.bytes = new Float64Array(this.buckets);
    this.frames = new Float64Array(this.buckets);
    this.packets = new Float64Array(this.buckets);
    this.stamps = new Float64Array(this.buckets).fill(-1);
  }

  add(now: number, bytes: number, frames = 0): void {
    const bucket = Math.floor(now / RATE_BUCKET_MS);
    const index = bucket % this.buckets;
    if (this.stamps[index] !== bucket) {
      this.stamps[index] = bucket;
      this.bytes[index] = 0;
      this.frames[index] = 0;
      this.packets[index] = 0;
    }
    this.bytes[index] = (this.bytes[index] ?? 0) + bytes;
    this.frames[index] = (this.frames[index] ?? 0) + frames;
    this.packets[index] = (this.packets[index] ?? 0) + 1;
  }

  /** Bits, frames and packets (each `add` one) a second over the window ending now. */
  rates(now: number): { bitrate: number; frameRate: number; packetRate: number } {
    const newest = Math.floor(now / RATE_BUCKET_MS);
    let bytes = 0;
    let frames = 0;
    let packets = 0;
    for (let index = 0; index < this.buckets; index += 1) {
      const stamp = this.stamps[index] ?? -1;
      if (stamp > newest - this.buckets && stamp <= newest) {
        bytes += this.bytes[index] ?? 0;
        frames += this.frames[index] ?? 0;
        packets += this.packets[index] ?? 0;
      }
    }
    const seconds = this.windowMs / 1000;
    return {
      bitrate: Math.round((bytes * 8) / seconds),
      frameRate: frames / seconds,
      packetRate: packets / seconds,
    };
  }
}
