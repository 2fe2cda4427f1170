/**
 * FrameAssembler (rtp-frames.ts): RTP packets into whole frames, with their media-clock times. A
 * broken frame (a lost packet, a cut before its marker, payloads that are not whole units) is
 * dropped, never given in part; what follows is dropped until a key frame, and one is asked for.
 */
import { describe, expect, it } from 'vitest';
import { RtpHeader, RtpPacket } from 'werift';
import { annexBNalUnits, avcCodecString } from './h264';
import { FrameAssembler, type Frame, type TrackCodec } from './rtp-frames';

function rtp(sequenceNumber: number, timestamp: number, marker: boolean, payload: number[]) {
  const header = new RtpHeader({ sequenceNumber, timestamp, payloadType: 96, marker });
  return new RtpPacket(header, Buffer.from(payload));
}

/** A VP8 packet: payload descriptor (S bit on the first), then the frame's bytes. */
function vp8Packet(
  sequenceNumber: number,
  timestamp: number,
  first: boolean,
  body: number[],
  marker = first,
) {
  return rtp(sequenceNumber, timestamp, marker, [first ? 0x10 : 0x00, ...body]);
}

/** A VP8 frame's first bytes: bit 0 of the first is 0 for a key frame. */
const KEY = [0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00];
const DELTA = [0x51, 0x02, 0x00, 0xaa];

/** H.264 NAL units: parameter sets, an IDR slice, a non-IDR slice (header byte first). */
const SPS = [0x67, 0x42, 0xc0, 0x15, 0xda];
const PPS = [0x68, 0xce, 0x3c, 0x80];
const IDR = [0x65, 0x88, 0x84, 0x00, 0x33, 0xff];
const SLICE = [0x41, 0x9a, 0x02, 0x10];
/** A STAP-A of `units`, each after its 16-bit size. */
const stapA = (...units: number[][]) => [0x78, ...units.flatMap((u) => [0, u.length, ...u])];
/** An FU-A piece of an IDR: S on the start, E on the end. */
const fuA = (start: boolean, end: boolean, body: number[]) => [
  0x7c,
  (start ? 0x80 : 0) | (end ? 0x40 : 0) | 5,
  ...body,
];
const annexB = (...units: number[][]) => units.flatMap((unit) => [0, 0, 0, 1, ...unit]);

function assembler(codec: TrackCodec = 'vp8') {
  const frames: Frame[] = [];
  let asked = 0;
  const frameAssembler = new FrameAssembler(
    codec,
    90_000,
    (frame) => frames.push(frame),
    () => (asked += 1),
  );
  return {
    frames,
    asked: () => asked,
    push: (...packets: RtpPacket[]) => packets.forEach((p) => frameAssembler.push(p)),
    /** Each frame given: key or not, its time, and (H.264) its NAL units. */
    given: () => frames.map((f) => [f.keyFrame, f.timeMs]),
    units: () => frames.map((f) => annexBNalUnits(f.data).map((unit) => [...unit])),
  };
}

describe('FrameAssembler', () => {
  it('joins a frame’s packets up to its marker, gives it then, and times it on the media clock', () => {
    const a = assembler();
    a.push(vp8Packet(10, 1000, true, KEY, false), vp8Packet(11, 1000, false, [1, 2, 3], true));
    expect(a.frames.map((f) => [f.keyFrame, f.timeMs, f.data.length])).toEqual([
      [true, 0, KEY.length + 3],
    ]);
    a.push(vp8Packet(12, 1000 + 3000, true, DELTA));
    // Padding after a frame carries nothing and breaks nothing.
    a.push(new RtpPacket(new RtpHeader({ sequenceNumber: 13, timestamp: 4000 }), Buffer.alloc(0)));
    a.push(vp8Packet(14, 1000 + 6000, true, DELTA));
    expect(a.given()).toEqual([
      [true, 0],
      [false, 1000 / 30],
      [false, 2000 / 30],
    ]);
    expect(a.asked()).toBe(0);
  });

  it('drops a frame with a lost packet and what follows until a key frame, and asks for one', () => {
    const a = assembler();
    a.push(vp8Packet(1, 0, true, KEY));
    a.push(vp8Packet(2, 3000, true, DELTA, false));
    a.push(vp8Packet(4, 3000, false, [9], true)); // 3 is lost: the frame at 3000 is broken
    a.push(vp8Packet(5, 6000, true, DELTA));
    a.push(vp8Packet(6, 9000, true, KEY));
    a.push(vp8Packet(7, 12_000, true, DELTA));
    expect(a.given()).toEqual([
      [true, 0],
      [true, 100],
      [false, 400 / 3],
    ]);
    expect(a.asked()).toBe(1);
  });

  it('asks again each second of media time while no key frame comes whole', () => {
    const a = assembler();
    a.push(vp8Packet(1, 0, true, KEY));
    a.push(vp8Packet(3, 3000, true, DELTA)); // 2 is lost: asked at once
    // Deltas, then a key frame that loses its second packet (seq 25 + 1 not sent).
    for (let i = 4; i <= 24; i += 1) a.push(vp8Packet(i, i * 3000, true, DELTA));
    expect(a.asked()).toBe(1);
    a.push(vp8Packet(25, 90_000, true, KEY, false), vp8Packet(27, 90_000, false, [1], true));
    expect(a.asked()).toBe(1); // less than a second after the first ask
    a.push(vp8Packet(28, 96_000, true, DELTA)); // a second after it
    expect(a.asked()).toBe(2);
    a.push(vp8Packet(29, 99_000, true, KEY));
    expect(a.given()).toEqual([
      [true, 0],
      [true, 1100],
    ]);
  });

  it('reads RTP timestamps across their 32-bit wrap', () => {
    const a = assembler();
    a.push(vp8Packet(1, 0xffff_f000, true, KEY));
    a.push(vp8Packet(2, 0x0000_1000, true, DELTA));
    a.push(vp8Packet(3, 0x0000_2000, true, DELTA));
    expect(a.frames.map((f) => f.timeMs)).toEqual([
      0,
      (0x2000 * 1000) / 90_000,
      (0x3000 * 1000) / 90_000,
    ]);
  });

  it('gives an H.264 key frame in Annex B: parameter sets from a STAP-A, the IDR from FU-As', () => {
    const a = assembler('h264');
    a.push(
      rtp(1, 0, false, stapA(SPS, PPS)),
      rtp(2, 0, false, fuA(true, false, IDR.slice(1, 3))),
      rtp(3, 0, true, fuA(false, true, IDR.slice(3))),
      rtp(4, 3000, true, SLICE),
    );
    expect(a.given()).toEqual([
      [true, 0],
      [false, 100 / 3],
    ]);
    expect(a.units()).toEqual([[SPS, PPS, IDR], [SLICE]]);
  });
});

describe('FrameAssembler on broken input: a broken frame is dropped, the next key frame recovers', () => {
  /** A whole H.264 key frame at `timestamp`, from sequence number `first` on. */
  const h264KeyFrame = (first: number, timestamp: number) => [
    rtp(first, timestamp, false, stapA(SPS, PPS)),
    rtp(first + 1, timestamp, false, fuA(true, false, IDR.slice(1, 3))),
    rtp(first + 2, timestamp, true, fuA(false, true, IDR.slice(3))),
  ];

  it('drops an H.264 frame whose fragment never had its start', () => {
    const a = assembler('h264');
    // The first packets received are an IDR's FU-A pieces after its start.
    a.push(rtp(1, 0, false, fuA(false, false, [1, 2])), rtp(2, 0, true, fuA(false, true, [3])));
    a.push(...h264KeyFrame(3, 3000));
    expect(a.given()).toEqual([[true, 0]]);
    expect(a.units()).toEqual([[SPS, PPS, IDR]]);
  });

  it('drops an H.264 frame whose fragment has no end, or starts again inside itself', () => {
    const a = assembler('h264');
    a.push(...h264KeyFrame(1, 0));
    a.push(rtp(4, 3000, true, fuA(true, false, [1, 2]))); // the marker, the fragment not ended
    a.push(rtp(5, 6000, false, fuA(true, false, [1])), rtp(6, 6000, true, fuA(true, true, [2])));
    a.push(rtp(7, 9000, true, SLICE));
    a.push(...h264KeyFrame(8, 12_000));
    expect(a.given()).toEqual([
      [true, 0],
      [true, 400 / 3],
    ]);
    expect(a.asked()).toBe(1);
  });

  it('drops an H.264 frame holding a unit whose F bit is set, in a fragment or alone', () => {
    const a = assembler('h264');
    const withF = (payload: number[]) => [(payload[0] ?? 0) | 0x80, ...payload.slice(1)];
    a.push(
      rtp(1, 0, false, stapA(SPS, PPS)),
      rtp(2, 0, false, withF(fuA(true, false, IDR.slice(1, 3)))),
      rtp(3, 0, true, withF(fuA(false, true, IDR.slice(3)))),
    );
    a.push(...h264KeyFrame(4, 3000));
    a.push(rtp(7, 6000, true, withF(SLICE)));
    a.push(rtp(8, 9000, false, stapA(SPS, withF(PPS))), rtp(9, 9000, true, IDR));
    a.push(...h264KeyFrame(10, 12_000));
    expect(a.given()).toEqual([
      [true, 0],
      [true, 100],
    ]);
    expect(a.asked()).toBe(1);
  });

  it('drops an H.264 frame whose STAP-A sizes overrun it', () => {
    const a = assembler('h264');
    const overrun = [0x78, 0, SPS.length, ...SPS, 0, 9, ...PPS];
    a.push(rtp(1, 0, false, overrun), rtp(2, 0, true, [0x65, 0x11]));
    // A STAP-A that ends in half a size.
    a.push(rtp(3, 3000, false, [...stapA(SPS, PPS), 0]), rtp(4, 3000, true, IDR));
    a.push(...h264KeyFrame(5, 6000));
    expect(a.given()).toEqual([[true, 0]]);
    expect(a.units()).toEqual([[SPS, PPS, IDR]]);
  });

  it('keeps the whole frame before a gap and drops the one after it, whose first packets were lost', () => {
    const a = assembler('h264');
    a.push(...h264KeyFrame(1, 0));
    a.push(rtp(4, 3000, true, SLICE));
    // Lost: 5, the first of two IDR slices at 6000 (each a unit of its own, so whole-looking).
    a.push(rtp(6, 6000, true, IDR));
    a.push(rtp(7, 9000, true, SLICE));
    a.push(...h264KeyFrame(8, 12_000));
    expect(a.given()).toEqual([
      [true, 0],
      [false, 100 / 3],
      [true, 400 / 3],
    ]);
    expect(a.asked()).toBe(1);
  });

  it('drops a frame cut before its marker by the next timestamp', () => {
    const a = assembler();
    a.push(vp8Packet(1, 0, true, KEY.slice(0, 8), false)); // the rest and its marker never come
    a.push(vp8Packet(2, 3000, true, KEY));
    expect(a.given()).toEqual([[true, 0]]);
    expect(a.frames[0]?.data.length).toBe(KEY.length);
  });

  it('drops a VP8 frame whose first packet does not open it', () => {
    const a = assembler();
    a.push(vp8Packet(1, 0, false, [...KEY, 1, 2], true)); // no S bit: its start came before
    a.push(vp8Packet(2, 3000, true, KEY));
    expect(a.given()).toEqual([[true, 0]]);
    expect(a.frames[0]?.data.length).toBe(KEY.length);
  });
});

describe('H.264 helpers', () => {
  it('splits Annex B into NAL units and names the codec from the SPS', () => {
    const stream = Buffer.from([...annexB(SPS), 0, 0, 1, 0x68, 0xce, 0, 0, 0, 1, 0x65, 0x88]);
    const units = annexBNalUnits(stream).map((unit) => [...unit]);
    expect(units).toEqual([SPS, [0x68, 0xce], [0x65, 0x88]]);
    expect(avcCodecString(Uint8Array.from(SPS))).toBe('avc1.42c015');
  });
});
