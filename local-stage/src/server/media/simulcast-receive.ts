/**
 * What werift 0.24 needs to receive a publisher's simulcast (docs/decisions/0067-simulcast-in.md).
 *
 * - It routes each encoding to a track of its own by the RTP stream id header extension, so the
 *   extensions `sdes:rtp-stream-id` and `repaired-rtp-stream-id` are negotiated, with `sdes:mid`
 *   (router.ts: `registerRtpReceiverByRid`, then a packet's SSRC once its rid was seen). Only for
 *   a simulcast offer: a publisher of one encoding negotiates what it did before.
 * - Its receiver keeps one NACK state (nack.ts: one expected sequence number, one media SSRC) for
 *   all the encodings its one transceiver receives: their interleaved sequence numbers read as
 *   thousands of losses a packet, NACKed every 5 ms. Each SSRC gets a NACK state of its own here.
 */
import {
  useRepairedRtpStreamId,
  useSdesRTPStreamId,
  type RTCRtpHeaderExtensionParameters,
  type RTCRtpReceiver,
  type RtpPacket,
} from 'werift';

/** The header extensions a simulcast video section needs beside the MID; none for one encoding. */
export function simulcastHeaderExtensions(
  rids: readonly string[],
): RTCRtpHeaderExtensionParameters[] {
  return rids.length > 0 ? [useSdesRTPStreamId(), useRepairedRtpStreamId()] : [];
}

/** The part of werift's NackHandler (receiver/nack.ts, not exported) the receiver calls. */
interface NackState {
  readonly onPacketLost: {
    execute(...args: never[]): void;
    subscribe(listener: (...args: never[]) => void): unknown;
  };
  addPacket(packet: RtpPacket): void;
  close(): void;
}

/**
 * Gives `receiver` a NACK state per SSRC: the receiver's own for the first SSRC seen, a new one
 * of the same class for each other (their losses still counted in the receiver's stats).
 */
export function nackPerSsrc(receiver: RTCRtpReceiver): void {
  // werift declares the field private; the receiver reads it on every packet (handleRTP).
  const held = receiver as unknown as { nack: NackState };
  const first = held.nack;
  const NackHandler = first.constructor as new (receiver: RTCRtpReceiver) => NackState;
  const bySsrc = new Map<number, NackState>();
  held.nack = {
    onPacketLost: first.onPacketLost,
    addPacket(packet) {
      const ssrc = packet.header.ssrc;
      let state = bySsrc.get(ssrc);
      if (state === undefined) {
        state = bySsrc.size === 0 ? first : new NackHandler(receiver);
        if (state !== first) {
          state.onPacketLost.subscribe((...lost) => first.onPacketLost.execute(...lost));
        }
        bySsrc.set(ssrc, state);
      }
      state.addPacket(packet);
    },
    close() {
      first.close();
      for (const state of bySsrc.values()) state.close();
    },
  };
}
