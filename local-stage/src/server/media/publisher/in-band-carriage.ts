/**
 * In-band messages for a VP8 layer (docs/decisions/0094-in-band-messages.md): VP8 has no SEI, so
 * the stage carries a publisher's messages as a trailer on the last packet of a frame, for the
 * viewers whose SDK asked for them. A message names the capture time of the frame it belongs to;
 * it goes on the first frame captured at or after that time (the layer's capture clock, from the
 * publisher's sender reports, says when each frame was captured; before the first report, on the
 * next frame), then on as many frames after as its repeat count says, as the IVS SDK repeats.
 * Each key frame also carries the newest message, so that a viewer who joins, or a layer switch,
 * has the data at its first picture.
 *
 * A message that found no frame within `STALE_MS` (a layer paused) is dropped: it would be old.
 */
import { trailer, type InBandMessage } from '../../../codecs/in-band';
import { int32Difference } from '../../../codecs/sequence';
import type { CaptureClock } from './capture-clock';

/** How long a message waits for its frame, and how long the newest one rides on key frames. */
export const STALE_MS = 3_000;
/** Half a frame at 30 fps, in 90 kHz ticks: a frame this much early still counts as captured at. */
const EARLY_TICKS = 1_500;

interface Waiting {
  message: InBandMessage;
  /** The RTP timestamp from which it goes (undefined: the next frame). */
  fromTimestamp: number | undefined;
  /** Frames still to carry it. */
  left: number;
  addedAt: number;
}

export class InBandCarriage {
  private waiting: Waiting[] = [];
  private newest: { message: InBandMessage; addedAt: number } | undefined;

  constructor(private readonly clock: Pick<CaptureClock, 'rtpTimestampAt'>) {}

  /** A message for the frame captured at `captureTimeMs` (epoch ms), repeated `repeatCount` times. */
  add(message: InBandMessage, captureTimeMs: number, repeatCount: number, now: number): void {
    this.waiting.push({
      message,
      fromTimestamp: this.clock.rtpTimestampAt(captureTimeMs),
      left: repeatCount + 1,
      addedAt: now,
    });
    this.newest = { message, addedAt: now };
  }

  /**
   * The trailer for the frame whose last packet this is (its RTP timestamp; a key frame or not),
   * or undefined when it carries nothing.
   */
  frameEnds(timestamp: number, keyFrame: boolean, now: number): Uint8Array | undefined {
    if (this.waiting.length === 0 && !(keyFrame && this.newest)) return undefined;
    const carried: InBandMessage[] = [];
    this.waiting = this.waiting.filter((each) => {
      if (now - each.addedAt > STALE_MS) return false;
      const due =
        each.fromTimestamp === undefined ||
        int32Difference(timestamp, each.fromTimestamp) >= -EARLY_TICKS;
      if (!due) return true;
      carried.push(each.message);
      each.left -= 1;
      return each.left > 0;
    });
    const newest = this.newest;
    if (keyFrame && newest && now - newest.addedAt <= STALE_MS) {
      if (!carried.includes(newest.message)) carried.push(newest.message);
    }
    return carried.length > 0 ? trailer(carried) : undefined;
  }
}
