// A viewer's NACKs for a layer it left go unanswered (subscription.ts moves the floor at the new
// layer's key frame): on a congested link they would queue ahead of that key frame. Unit test on
// a fake sender: what matters here is which packets go out again.
import {
  GenericNack,
  RtcpPacketConverter,
  RtcpTransportLayerFeedback,
  RtpHeader,
  RtpPacket,
} from 'werift';
import type { RTCRtpSender, RTCRtpTransceiver } from 'werift';
import { describe, expect, it } from 'vitest';
import { TrackForwarder } from './forwarding';

function forwarder(withRtx = false) {
  const sent: number[] = [];
  /** The original sequence numbers of what went out as RTX (its payload's first two bytes). */
  const sentAsRtx: number[] = [];
  const sender = {
    ssrc: 1111,
    rtxSsrc: 2222,
    codec: { payloadType: 96 },
    rtcpRunning: false,
    transport: {
      state: 'connected',
      sendRtp: (payload: Buffer, header: RtpHeader) => {
        if (header.payloadType === 97) sentAsRtx.push(payload.readUInt16BE(0));
        else sent.push(header.sequenceNumber);
        return Promise.resolve(0);
      },
    },
    handleRtcpPacket: () => undefined,
  } as unknown as RTCRtpSender;
  const transceiver = {
    mid: null,
    headerExtensions: [],
    codecs: withRtx ? [{ mimeType: 'video/rtx', payloadType: 97, parameters: 'apt=96' }] : [],
  } as unknown as RTCRtpTransceiver;
  const track = new TrackForwarder({ sender, transceiver, clock: undefined, cachePackets: 64 });
  // As it comes off the wire: serialized, then parsed by werift.
  const nack = (lost: number[]) => {
    const feedback = new GenericNack({ senderSsrc: 7, mediaSourceSsrc: 1111, lost });
    const wire = new RtcpTransportLayerFeedback({ feedback }).serialize();
    for (const rtcp of RtcpPacketConverter.deSerialize(wire)) sender.handleRtcpPacket(rtcp);
  };
  return { track, sent, sentAsRtx, nack };
}

const packet = (sequenceNumber: number) =>
  new RtpPacket(new RtpHeader({ sequenceNumber, timestamp: sequenceNumber }), Buffer.alloc(100));

describe('NACKs for a layer the viewer left', () => {
  it('are not answered; those after the new layer’s key frame are, across the wrap', () => {
    const { track, sent, nack } = forwarder();
    for (const sequence of [65_533, 65_534, 65_535, 0, 1]) track.forward(packet(sequence));
    sent.length = 0;
    // The new layer's key frame went out as 65,535.
    track.retransmitFrom(65_535);
    nack([65_533, 65_534, 65_535, 0, 1]);
    expect(sent).toEqual([65_535, 0, 1]);
    expect(track.counts.superseded).toBe(2);
    expect(track.counts.retransmitted).toBe(3);
  });
});

describe('redundancy on a line that loses packets with a long round trip', () => {
  it('sends every packet forwarded since the last call again as RTX, once, and none of those forwarded while it was off', () => {
    const { track, sentAsRtx } = forwarder(true);
    track.resendRecent();
    for (const sequence of [65_534, 65_535, 0]) track.forward(packet(sequence));
    track.resendRecent();
    expect(sentAsRtx).toEqual([65_534, 65_535, 0]);
    track.resendRecent();
    expect(sentAsRtx).toHaveLength(3);
    // Off: the packets forwarded meanwhile are marked, not sent when it comes back on.
    track.forward(packet(1));
    track.resendRecent(false);
    track.forward(packet(2));
    track.resendRecent();
    expect(sentAsRtx).toEqual([65_534, 65_535, 0, 2]);
    expect(track.counts.redundantPackets).toBe(4);
  });
});
