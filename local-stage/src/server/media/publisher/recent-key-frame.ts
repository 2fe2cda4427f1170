/**
 * A layer's latest key frame and the packets after it, kept a short while: a viewer that comes
 * then starts from it, not from the next key frame (docs/decisions/0111-a-join-starts-from-a-key-frame-just-sent.md).
 * A publisher's encoder takes one PLI in 300 ms (libwebrtc's), so a join just after another's key
 * frame (another viewer's join, the thumbnails' picture every 10 s) waited up to 330 ms for its
 * own; its picture now starts from one at most `RECENT_KEY_FRAME_MS` old.
 */
import type { RtpPacket } from 'werift';

/** Longer than the least time between two PLIs (KEY_FRAME_MIN_INTERVAL_MS, 330 ms). */
export const RECENT_KEY_FRAME_MS = 400;
/** A 640x360 key frame and 400 ms after it come to ~50 packets; what is more is not kept. */
const MAX_PACKETS = 100;

export interface KeptPacket {
  packet: RtpPacket;
  keyFrameStart: boolean;
  inBand: Uint8Array | undefined;
}

export class RecentKeyFrame {
  private at: number | undefined;
  private packets: KeptPacket[] = [];

  /** A packet of the layer as it arrives: from a key frame's first on, kept a while. */
  keep(packet: RtpPacket, keyFrameStart: boolean, inBand: Uint8Array | undefined, now: number) {
    if (keyFrameStart) {
      this.at = now;
      this.packets = [];
    } else if (this.at === undefined) {
      return;
    }
    if (now - this.at > RECENT_KEY_FRAME_MS || this.packets.length >= MAX_PACKETS) {
      this.clear();
      return;
    }
    this.packets.push({ packet: packet.clone(), keyFrameStart, inBand });
  }

  /** The key frame and what followed, each packet a copy of its own; none if it is too old. */
  packetsAt(now: number): KeptPacket[] {
    if (this.at === undefined || now - this.at > RECENT_KEY_FRAME_MS) return [];
    return this.packets.map((kept) => ({ ...kept, packet: kept.packet.clone() }));
  }

  clear(): void {
    this.at = undefined;
    this.packets = [];
  }
}
