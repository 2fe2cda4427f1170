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

function forwarder() {
  const sent: number[] = [];
  const retransmittedBytes: number[] = [];
  const sender = {
    ssrc: 1111,
    rtxSsrc: 2222,
    codec: { payloadType: 96 },
    rtcpRunning: false,
    transport: {
      state: 'connected',
      sendRtp: (_payload: Buffer, header: RtpHeader) => {
        sent.push(header.sequenceNumber);
        return Promise.resolve(0);
      },
    },
    handleRtcpPacket: () => undefined,
  } as unknown as RTCRtpSender;
  const transceiver = {
    mid: null,
    headerExtensions: [],
    codecs: [],
  } as unknown as RTCRtpTransceiver;
  const track = new TrackForwarder({
    sender,
    transceiver,
    clock: undefined,
    cachePackets: 64,
    onRetransmitted: (bytes) => retransmittedBytes.push(bytes),
  });
  // As it comes off the wire: serialized, then parsed by werift.
  const nack = (lost: number[]) => {
    const feedback = new GenericNack({ senderSsrc: 7, mediaSourceSsrc: 1111, lost });
    const wire = new RtcpTransportLayerFeedback({ feedback }).serialize();
    for (const rtcp of RtcpPacketConverter.deSerialize(wire)) sender.handleRtcpPacket(rtcp);
  };
  return { track, sent, nack, retransmittedBytes };
}

const packet = (sequenceNumber: number) =>
  new RtpPacket(new RtpHeader({ sequenceNumber, timestamp: sequenceNumber }), Buffer.alloc(100));

describe('NACKs for a layer the viewer left', () => {
  it('are not answered; those after the new layer’s key frame are, across the wrap', () => {
    const { track, sent, nack, retransmittedBytes } = forwarder();
    for (const sequence of [65_533, 65_534, 65_535, 0, 1]) track.forward(packet(sequence));
    sent.length = 0;
    // The new layer's key frame went out as 65,535.
    track.retransmitFrom(65_535);
    nack([65_533, 65_534, 65_535, 0, 1]);
    expect(sent).toEqual([65_535, 0, 1]);
    expect(track.counts.superseded).toBe(2);
    expect(track.counts.retransmitted).toBe(3);
    // What the viewer's link was offered again, for its loss bound (decision 0108).
    expect(retransmittedBytes).toEqual([100, 100, 100]);
  });
});
