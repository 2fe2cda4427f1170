import {
  GenericNack,
  RTCPeerConnection,
  RtcpTransportLayerFeedback,
  RtpHeader,
  RtpPacket,
  type RTCRtpReceiver,
} from 'werift';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_GAP,
  MAX_REQUESTS_A_PACKET,
  NackRequests,
  RETRY_MIN_MS,
  RETRY_UNTIMED_MS,
  pacedNackRequests,
} from './nack-requests';

function packet(sequenceNumber: number, ssrc = 1111): RtpPacket {
  return new RtpPacket(new RtpHeader({ ssrc, sequenceNumber, payloadType: 96 }), Buffer.from([0]));
}

describe('NackRequests', () => {
  let sent: { at: number; ssrc: number; lost: number[] }[];
  let requests: NackRequests;

  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    requests = new NackRequests(
      (ssrc, lost) => sent.push({ at: Date.now(), ssrc, lost }),
      () => Date.now(),
    );
  });
  afterEach(() => {
    requests.close();
    vi.useRealTimers();
  });

  /** Packets `from`…`to` of one SSRC, one every `everyMs`, `skip` left out. */
  function feed(from: number, to: number, everyMs = 0, skip: number[] = [], ssrc = 1111): void {
    for (let seq = from; seq <= to; seq += 1) {
      if (!skip.includes(seq)) requests.addPacket(packet(seq & 0xffff, ssrc));
      if (everyMs > 0) vi.advanceTimersByTime(everyMs);
    }
  }

  it('asks for a lost packet as soon as a later one shows it missing, once', () => {
    const start = Date.now();
    feed(100, 110, 1, [105]);
    expect(sent).toEqual([{ at: start + 6, ssrc: 1111, lost: [105] }]);
  });

  it('asks again only after the retry wait, and gives up after the last request', () => {
    feed(100, 106, 0, [103]);
    // Nothing comes back: werift asked every 5 ms; here the second request waits RETRY_UNTIMED_MS.
    vi.advanceTimersByTime(RETRY_UNTIMED_MS - 1);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sent).toHaveLength(2);
    vi.advanceTimersByTime(10 * RETRY_UNTIMED_MS);
    expect(sent.map((each) => each.lost)).toEqual(Array(MAX_REQUESTS_A_PACKET).fill([103]));
    expect(requests.missingCount).toBe(0);
    expect(requests.counts).toEqual({
      missing: 1,
      nacks: MAX_REQUESTS_A_PACKET,
      packetsAsked: MAX_REQUESTS_A_PACKET,
      recovered: 0,
      givenUp: 1,
    });
  });

  it('stops asking once the packet comes, and times the link by it', () => {
    feed(100, 106, 0, [103]);
    vi.advanceTimersByTime(30);
    requests.addPacket(packet(103)); // the retransmission, 30 ms after the request
    vi.advanceTimersByTime(10 * RETRY_UNTIMED_MS);
    expect(sent).toHaveLength(1);
    expect(requests.counts).toEqual({
      missing: 1,
      nacks: 1,
      packetsAsked: 1,
      recovered: 1,
      givenUp: 0,
    });
    // The next loss is asked again after twice the time a retransmission took, not the default.
    expect(requests.retryMs).toBe(60);
    feed(107, 112, 0, [110]);
    vi.advanceTimersByTime(59);
    expect(sent).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sent.at(-1)?.lost).toEqual([110]);
  });

  it('takes no timing from a packet asked for more than once (Karn), and keeps the floor', () => {
    feed(100, 106, 0, [103]);
    vi.advanceTimersByTime(RETRY_UNTIMED_MS + 5);
    requests.addPacket(packet(103)); // which request did it answer? Unknown: not timed
    expect(requests.retryMs).toBe(RETRY_UNTIMED_MS);
    feed(107, 110, 0, [108]);
    requests.addPacket(packet(108)); // came back at once: reordered, not resent
    expect(requests.retryMs).toBe(RETRY_MIN_MS);
  });

  it('counts across the wrap of the sequence numbers', () => {
    feed(65_530, 65_540, 0, [65_535, 65_537]);
    expect(sent.map((each) => each.lost)).toEqual([[65_535], [1]]);
  });

  it('takes a jump of more than MAX_GAP as the stream starting anew, not as losses', () => {
    feed(100, 105);
    requests.addPacket(packet(105 + MAX_GAP + 1));
    feed(106 + MAX_GAP + 1, 110 + MAX_GAP + 1);
    expect(sent).toEqual([]);
  });

  it('keeps each simulcast layer apart: interleaved SSRCs lose nothing', () => {
    const starts = [100, 30_000, 61_000];
    for (let index = 0; index < 20; index += 1) {
      starts.forEach((start, layer) =>
        requests.addPacket(packet(start + index, 1111 * (layer + 1))),
      );
    }
    feed(20_120, 20_130, 0, [20_125], 2222 * 2);
    expect(sent).toEqual([{ at: Date.now(), ssrc: 4444, lost: [20_125] }]);
  });

  it('asks nothing more once closed', () => {
    feed(100, 106, 0, [103]);
    requests.close();
    vi.advanceTimersByTime(10 * RETRY_UNTIMED_MS);
    feed(107, 112, 0, [110]);
    expect(sent).toHaveLength(1);
  });
});

describe("pacedNackRequests on werift's receiver", () => {
  const peers: RTCPeerConnection[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const peer of peers.splice(0)) await peer.close();
  });

  it('sends werift NACKs on the receiver’s transport and counts them in its stats', async () => {
    vi.useFakeTimers();
    const peer = new RTCPeerConnection();
    peers.push(peer);
    const receiver: RTCRtpReceiver = peer.addTransceiver('video', {
      direction: 'recvonly',
    }).receiver;
    const rtcp: RtcpTransportLayerFeedback[] = [];
    // The transport is not connected here: what the receiver would send is caught on its way out.
    vi.spyOn(receiver.dtlsTransport, 'sendRtcp').mockImplementation(async (packets) => {
      rtcp.push(...(packets as RtcpTransportLayerFeedback[]));
      return undefined;
    });
    const counted: GenericNack[] = [];
    (
      receiver as unknown as {
        nack: { onPacketLost: { subscribe(f: (n: GenericNack) => void): void } };
      }
    ).nack.onPacketLost.subscribe((nack) => counted.push(nack));
    pacedNackRequests(receiver);
    const nack = (receiver as unknown as { nack: { addPacket(p: RtpPacket): void } }).nack;
    for (const seq of [10, 11, 13, 14]) nack.addPacket(packet(seq, 5555));
    vi.advanceTimersByTime(50); // werift's own would have asked ten times by now
    expect(rtcp).toHaveLength(1);
    const feedback = rtcp[0]?.feedback as GenericNack;
    expect(feedback.mediaSourceSsrc).toBe(5555);
    expect(feedback.lost).toEqual([12]);
    expect(counted).toHaveLength(1);
  });
});
