/**
 * A synthetic aircraft's flight data (docs/flight-data.md): once a second of captured frames, the
 * aircraft's position and motion at the frame being handed to the encoder, as a MISB ST 0601
 * packet, sent on the camera link for the stage to carry in the video with that frame
 * (docs/decisions/0094-in-band-messages.md). The stage also puts the newest one on every key
 * frame, so a viewer has it at its first picture. IVS's insert rules hold here too.
 */
import { flightDataAt } from '@tailcam/protocol/flight-data/flight';
import { encodeCameraInBandMessage } from '../camera-link';
import { InBandRateRules, IVS_SEI_UUID } from '../codecs/in-band';

/** One packet a second of frames. */
export const TELEMETRY_INTERVAL_MS = 1_000;
/**
 * Each packet rides on this many frames after its own (IVS's `repeatCount`): a frame whose last
 * packet is lost beyond NACK's reach loses its packet, and the next ones carry it
 * (docs/benchmarks.md: payloads lost at 2 % loss).
 */
export const TELEMETRY_REPEAT_COUNT = 2;

export class FlightTelemetry {
  private lastSentMs = -Infinity;
  private readonly rules: InBandRateRules;

  constructor(
    private readonly stageId: string,
    /** Sends a camera link message; false while the link is closed. */
    private readonly send: (message: Buffer) => boolean,
    fps: number,
  ) {
    this.rules = new InBandRateRules(fps);
  }

  /** A frame captured at `captureTimeMs` (epoch ms) goes to the encoder now. */
  frameCaptured(captureTimeMs: number): void {
    if (captureTimeMs - this.lastSentMs < TELEMETRY_INTERVAL_MS) return;
    const payload = flightDataAt(this.stageId, captureTimeMs);
    if (this.rules.check(payload.length, TELEMETRY_REPEAT_COUNT) !== undefined) return;
    const sent = this.send(
      encodeCameraInBandMessage({
        stageId: this.stageId,
        captureTimeMs,
        repeatCount: TELEMETRY_REPEAT_COUNT,
        uuid: IVS_SEI_UUID,
        payload,
      }),
    );
    if (sent) this.lastSentMs = captureTimeMs;
  }
}
