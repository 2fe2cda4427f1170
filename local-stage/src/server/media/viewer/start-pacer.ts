/**
 * The start of a viewer's video, paced (docs/decisions/0102-a-paced-start.md): its first frame
 * leaves at once, and what follows it for `START_PACING_MS` (the frames held while the viewer
 * connected, the encoder's first second after the key frame the viewer asked for) leaves at
 * `START_PACE_FACTOR` times the layer's bitrate, in order, never in one burst.
 *
 * A start sent at once put 38–48 KB on the wire within 100 ms: more than a 2,000 kbit/s link with
 * 100 ms of queue takes (30 KB), and the loss and the retransmissions that followed took the
 * viewer off 640x360 (the network lab). After the start, packets go as they come again: pacing
 * every key frame would hold each one back for the viewers whose links carry it at once.
 */
import type { RtpPacket } from 'werift';

/** How long after the first frame the video is paced. */
export const START_PACING_MS = 1_000;
/** The pace, against the bitrate of the layer sent (libwebrtc's sender paces at 2.5 times too). */
export const START_PACE_FACTOR = 2.5;
/** The least pace, bits a second: a layer not yet measured is paced at this. */
export const MIN_START_PACE = 1_000_000;
/** At most this many bytes leave together (two full packets). */
const MAX_BURST_BYTES = 2_400;
const TICK_MS = 5;

export class StartPacer {
  private queue: RtpPacket[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Pacing until then (performance.now), and after while packets wait. */
  private until = 0;
  /** The first frame is still coming (its key frame's last packet not yet sent): sent at once. */
  private firstFrameComing = false;
  private budget = 0;
  private budgetAt = 0;
  /** Stopped, or its second over: it takes nothing more. */
  private stopped = false;

  constructor(
    private readonly send: (packet: RtpPacket) => void,
    /** The layer's bitrate now, bits a second (0: not known yet). */
    private readonly layerBitrate: () => number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Sends the first frame of `packets` now and paces the rest, and what comes for a while. A
   * first frame not whole in `packets` (its key frame still arriving) goes on at once as it
   * comes; the pacing starts after its last packet.
   */
  start(packets: readonly RtpPacket[]): void {
    const firstFrameEnd = firstFrameLength(packets);
    for (const packet of packets.slice(0, firstFrameEnd)) this.send(packet);
    if (!packets[firstFrameEnd - 1]?.header.marker) {
      this.firstFrameComing = true;
      return;
    }
    this.beginPacing(packets.slice(firstFrameEnd));
  }

  /** Takes `packet` to pace (true), or says it may go at once (false). */
  take(packet: RtpPacket): boolean {
    if (this.stopped) return false;
    if (this.firstFrameComing) {
      if (packet.header.marker) {
        this.firstFrameComing = false;
        this.beginPacing([]);
      }
      return false;
    }
    if (this.queue.length === 0 && this.now() >= this.until) {
      // Its second is over and nothing waits: every packet from now on goes at once, unread.
      this.stopped = true;
      return false;
    }
    this.queue.push(packet);
    this.drain();
    return true;
  }

  /** Packets waiting to leave. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Drops what waits; takes nothing more. */
  stop(): void {
    this.stopped = true;
    this.queue = [];
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private beginPacing(packets: readonly RtpPacket[]): void {
    const now = this.now();
    this.until = now + START_PACING_MS;
    this.budget = 0;
    this.budgetAt = now;
    this.queue.push(...packets);
    this.drain();
  }

  private drain(): void {
    if (this.timer || this.stopped) return;
    const now = this.now();
    const rate = Math.max(MIN_START_PACE, START_PACE_FACTOR * this.layerBitrate());
    this.budget = Math.min(MAX_BURST_BYTES, this.budget + ((now - this.budgetAt) * rate) / 8_000);
    this.budgetAt = now;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (this.budget < next.payload.length && this.budget < MAX_BURST_BYTES) break;
      this.budget -= next.payload.length;
      this.queue.shift();
      this.send(next);
    }
    if (this.queue.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.drain();
    }, TICK_MS);
  }
}

/** What a start holds: its key frame's bytes, and all the bytes, packets and ms held with it. */
export function startFigures(packets: readonly RtpPacket[]) {
  const bytes = (some: readonly RtpPacket[]) =>
    some.reduce((sum, packet) => sum + packet.payload.length, 0);
  const firstFrameEnd = firstFrameLength(packets);
  const first = packets[0]?.header.timestamp ?? 0;
  const last = packets.at(-1)?.header.timestamp ?? first;
  return {
    keyFrameBytes: bytes(packets.slice(0, firstFrameEnd)),
    heldBytes: bytes(packets),
    heldPackets: packets.length,
    heldMs: Math.round(((last - first) >>> 0) / 90),
  };
}

/** The packets of the first frame of `packets` (up to its marker), or all of them. */
const firstFrameLength = (packets: readonly RtpPacket[]) =>
  packets.findIndex((packet) => packet.header.marker) + 1 || packets.length;
