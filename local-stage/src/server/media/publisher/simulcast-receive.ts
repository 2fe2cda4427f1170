/**
 * What werift 0.24 needs to receive a publisher's simulcast (docs/decisions/0067-simulcast-in.md).
 *
 * - It routes each encoding to a track of its own by the RTP stream id header extension, so the
 *   extensions `sdes:rtp-stream-id` and `repaired-rtp-stream-id` are negotiated, with `sdes:mid`
 *   (router.ts: `registerRtpReceiverByRid`, then a packet's SSRC once its rid was seen). Only for
 *   a simulcast offer: a publisher of one encoding negotiates what it did before.
 * - Its receiver keeps one NACK state (nack.ts: one expected sequence number, one media SSRC) for
 *   all the encodings its one transceiver receives: their interleaved sequence numbers read as
 *   thousands of losses a packet, NACKed every 5 ms. The stage's own NACK requests
 *   (nack-requests.ts) keep a state per SSRC.
 */
import {
  useRepairedRtpStreamId,
  useSdesRTPStreamId,
  type RTCRtpHeaderExtensionParameters,
} from 'werift';

/** The header extensions a simulcast video section needs beside the MID; none for one encoding. */
export function simulcastHeaderExtensions(
  rids: readonly string[],
): RTCRtpHeaderExtensionParameters[] {
  return rids.length > 0 ? [useSdesRTPStreamId(), useRepairedRtpStreamId()] : [];
}
