/**
 * FrameAssembler (rtp-frames.ts): RTP packets into whole frames, with their media-clock times; a lost
 * packet drops its frame and everything up to the next key frame, and asks for one.
 */
import { describe, expect, it } from 'vitest';
import { RtpHeader, RtpPacket } from 'werift';
import { annexBNalUnits, avcCodecString } from './h264';
import { FrameAssembler, type Frame } from './rtp-frames';

/** A VP8 packet: payload descriptor (S bit on the first), then the frame's bytes. */
function vp8Packet(sequenceNumber: number, timestamp: number, first: boolean, body: number[]) {
  const header = new RtpHeader({ sequenceNumber, timestamp, payloadType: 96, marker: false });
  return new RtpPacket(header, Buffer.from([first ? 0x10 : 0x00, ...body]));
}

/** A VP8 frame's first bytes: bit 0 of the first is 0 for a key frame. */
const KEY = [0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00];
const DELTA = [0x51, 0x02, 0x00, 0xaa];

function assembler() {
  const frames: Frame[] = [];
  let asked = 0;
  const frameAssembler = new FrameAssembler(
    'vp8',
    90_000,
    (frame) => frames.push(frame),
    () => (asked += 1),
  );
  return { frames, asked: () => asked, push: (p: RtpPacket) => frameAssembler.push(p) };
}

describe('FrameAssembler', () => {
  it('joins a frame’s packets, emits it when the next begins, and times it on the media clock', () => {
    const a = assembler();
    a.push(vp8Packet(10, 1000, true, KEY));
    a.push(vp8Packet(11, 1000, false, [1, 2, 3]));
    a.push(vp8Packet(12, 1000 + 3000, true, DELTA));
    // Padding after a frame carries nothing and breaks nothing.
    a.push(new RtpPacket(new RtpHeader({ sequenceNumber: 13, timestamp: 4000 }), Buffer.alloc(0)));
    a.push(vp8Packet(14, 1000 + 6000, true, DELTA));
    expect(a.frames.map((f) => [f.keyFrame, f.timeMs, f.data.length])).toEqual([
      [true, 0, KEY.length + 3],
      [false, 1000 / 30, DELTA.length],
    ]);
    expect(a.asked()).toBe(0);
  });

  it('drops a frame with a lost packet and what follows until a key frame, and asks for one', () => {
    const a = assembler();
    a.push(vp8Packet(1, 0, true, KEY));
    a.push(vp8Packet(2, 3000, true, DELTA));
    a.push(vp8Packet(4, 3000, false, [9])); // 3 is lost: the frame at 3000 is broken
    a.push(vp8Packet(5, 6000, true, DELTA));
    a.push(vp8Packet(6, 9000, true, KEY));
    a.push(vp8Packet(7, 12_000, true, DELTA));
    expect(a.frames.map((f) => [f.keyFrame, f.timeMs])).toEqual([
      [true, 0],
      [true, 100],
    ]);
    expect(a.asked()).toBe(1);
  });

  it('reads RTP timestamps across their 32-bit wrap', () => {
    const a = assembler();
    a.push(vp8Packet(1, 0xffff_f000, true, KEY));
    a.push(vp8Packet(2, 0x0000_1000, true, DELTA));
    a.push(vp8Packet(3, 0x0000_2000, true, DELTA));
    expect(a.frames.map((f) => f.timeMs)).toEqual([0, (0x2000 * 1000) / 90_000]);
  });
});

describe('H.264 helpers', () => {
  it('splits Annex B into NAL units and names the codec from the SPS', () => {
    const sps = [0x67, 0x42, 0xc0, 0x15, 0xda];
    const stream = Buffer.from([0, 0, 0, 1, ...sps, 0, 0, 1, 0x68, 0xce, 0, 0, 0, 1, 0x65, 0x88]);
    const units = annexBNalUnits(stream).map((unit) => [...unit]);
    expect(units).toEqual([sps, [0x68, 0xce], [0x65, 0x88]]);
    expect(avcCodecString(Uint8Array.from(sps))).toBe('avc1.42c015');
  });
});
