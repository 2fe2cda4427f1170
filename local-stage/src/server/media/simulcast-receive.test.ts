import { RTCPeerConnection, RtpHeader, RtpPacket, type RTCRtpReceiver } from 'werift';
import { afterEach, describe, expect, it } from 'vitest';
import { nackPerSsrc } from './simulcast-receive';

/** werift's NackHandler as far as this test reads it (the receiver's field is private). */
interface NackState {
  readonly lostSeqNumbers: number[];
  addPacket(packet: RtpPacket): void;
  close(): void;
}
const nackOf = (receiver: RTCRtpReceiver) => (receiver as unknown as { nack: NackState }).nack;

const peers: RTCPeerConnection[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

function videoReceiver(): RTCRtpReceiver {
  const peer = new RTCPeerConnection();
  peers.push(peer);
  return peer.addTransceiver('video', { direction: 'recvonly' }).receiver;
}

/** Three layers' packets as they arrive: interleaved, each SSRC's numbers in order, none lost. */
function feedThreeLayers(nack: NackState): void {
  const starts = { 1111: 100, 2222: 30_000, 3333: 61_000 };
  for (let index = 0; index < 20; index += 1) {
    for (const [ssrc, start] of Object.entries(starts)) {
      const header = new RtpHeader({
        ssrc: Number(ssrc),
        sequenceNumber: (start + index) % 65_536,
        payloadType: 96,
      });
      nack.addPacket(new RtpPacket(header, Buffer.from([0])));
    }
  }
}

describe("werift's NACK state with simulcast", () => {
  it('reads three interleaved layers as losses when it is one for the receiver (werift as it is)', () => {
    const own = nackOf(videoReceiver());
    feedThreeLayers(own);
    expect(own.lostSeqNumbers.length).toBeGreaterThan(100);
    own.close();
  });

  it('loses nothing with one NACK state per SSRC', () => {
    const receiver = videoReceiver();
    const first = nackOf(receiver);
    nackPerSsrc(receiver);
    feedThreeLayers(nackOf(receiver));
    // The receiver's own state took the first SSRC's packets only, in order.
    expect(first.lostSeqNumbers).toEqual([]);
    nackOf(receiver).close();
  });
});
