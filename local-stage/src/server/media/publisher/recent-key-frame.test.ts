import { RtpHeader, RtpPacket } from 'werift';
import { describe, expect, it } from 'vitest';
import { RECENT_KEY_FRAME_MS, RecentKeyFrame } from './recent-key-frame';

function packet(sequenceNumber: number): RtpPacket {
  return new RtpPacket(
    new RtpHeader({ ssrc: 1, sequenceNumber, timestamp: sequenceNumber * 3_000 }),
    Buffer.from([sequenceNumber & 0xff]),
  );
}

const sequences = (recent: RecentKeyFrame, now: number) =>
  recent.packetsAt(now).map((kept) => kept.packet.header.sequenceNumber);

describe('a layer’s recent key frame', () => {
  it('keeps the latest key frame and what followed it, and nothing before a key frame', () => {
    const recent = new RecentKeyFrame();
    recent.keep(packet(1), false, undefined, 0); // no key frame yet: nothing to start from
    expect(sequences(recent, 0)).toEqual([]);
    recent.keep(packet(2), true, undefined, 10);
    recent.keep(packet(3), false, undefined, 20);
    const trailer = new Uint8Array([9]);
    recent.keep(packet(4), false, trailer, 40);
    expect(sequences(recent, 50)).toEqual([2, 3, 4]);
    expect(recent.packetsAt(50).map((kept) => kept.keyFrameStart)).toEqual([true, false, false]);
    expect(recent.packetsAt(50)[2]?.inBand).toBe(trailer);
    // The next key frame starts it afresh.
    recent.keep(packet(5), true, undefined, 100);
    recent.keep(packet(6), false, undefined, 110);
    expect(sequences(recent, 120)).toEqual([5, 6]);
  });

  it('gives nothing once its key frame is older than a join would wait for the next', () => {
    const recent = new RecentKeyFrame();
    recent.keep(packet(1), true, undefined, 0);
    expect(sequences(recent, RECENT_KEY_FRAME_MS)).toEqual([1]);
    expect(sequences(recent, RECENT_KEY_FRAME_MS + 1)).toEqual([]);
    // And keeps nothing after that until the next key frame.
    recent.keep(packet(2), false, undefined, RECENT_KEY_FRAME_MS + 10);
    recent.keep(packet(3), true, undefined, RECENT_KEY_FRAME_MS + 20);
    expect(sequences(recent, RECENT_KEY_FRAME_MS + 30)).toEqual([3]);
  });

  it('hands each listener copies of its own, and keeps its own copies of what it was given', () => {
    const recent = new RecentKeyFrame();
    const given = packet(1);
    recent.keep(given, true, undefined, 0);
    given.header.sequenceNumber = 99; // the listeners' packets are rewritten as they are sent
    const first = recent.packetsAt(1)[0]?.packet;
    expect(first?.header.sequenceNumber).toBe(1);
    if (first) first.header.sequenceNumber = 77;
    expect(sequences(recent, 2)).toEqual([1]);
  });
});
