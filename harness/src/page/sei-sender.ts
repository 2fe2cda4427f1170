/**
 * A browser publisher's `insertSeiMessage`, as the IVS Web Broadcast SDK's
 * `LocalStageStream.insertSeiMessage(payload, { repeatCount })` behaves (docs/decisions/0094-in-band-messages.md):
 * IVS's rules (a payload of 1 to 1,024 bytes, a repeat count of 0 to 30, at most 10,240 bytes a
 * second counting the repeats) refuse an insert with a warning and the promise resolves; a
 * message let through goes on the next H.264 frame, and on `repeatCount` frames after, as an SEI
 * user_data_unregistered NAL unit with IVS's UUID, written by an `RTCRtpScriptTransform` on the
 * video sender (sei-sender-worker.ts). The local SDK does not publish: this is the publisher
 * page's own, what a page publishing over WHIP with its browser's encoder writes itself
 * (docs/deployment.md, "Flight data from an aircraft's encoder").
 */
import { InBandRateRules } from '@tailcam/local-stage/codecs/in-band';
import type { SeiSenderMessage } from './sei-sender-worker';

/** Where the publisher page's server serves sei-sender-worker.ts (third-party-pages.ts). */
export const SEI_SENDER_WORKER_PATH = '/sei-sender-worker.js';

export class SeiSender {
  private readonly rules: InBandRateRules;

  /** `worker` runs sei-sender-worker.ts; `framesPerSecond` is the video's, for the rules. */
  constructor(
    private readonly worker: Worker,
    framesPerSecond: number,
  ) {
    this.rules = new InBandRateRules(framesPerSecond);
  }

  /**
   * Writes the messages on `sender`'s encoded frames: attached before the sender starts (Chromium
   * gives a transform set later no frame).
   */
  attach(sender: RTCRtpSender): void {
    sender.transform = new RTCRtpScriptTransform(this.worker);
  }

  async insertSeiMessage(payload: ArrayBuffer, options: { repeatCount?: number } = {}) {
    const repeatCount = options.repeatCount ?? 0;
    const refused = this.rules.check(payload.byteLength, repeatCount);
    if (refused) {
      console.warn(`insertSeiMessage: ${refused}`);
      return;
    }
    const message: SeiSenderMessage = { payload: payload.slice(0), repeatCount };
    this.worker.postMessage(message, [message.payload]);
    await Promise.resolve();
  }
}
