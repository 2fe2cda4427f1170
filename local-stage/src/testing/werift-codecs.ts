/** The codecs the stage's tests give werift peers: VP8 with NACK and PLI, as the stage sends it. */
import { RTCRtpCodecParameters } from 'werift';

type Feedback = { type: string; parameter?: string };

/** VP8 at 90 kHz with NACK and PLI feedback, and any `more` (e.g. FIR). */
export function vp8Codec(more: Feedback[] = []): RTCRtpCodecParameters {
  return new RTCRtpCodecParameters({
    mimeType: 'video/VP8',
    clockRate: 90_000,
    rtcpFeedback: [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }, ...more],
  });
}
