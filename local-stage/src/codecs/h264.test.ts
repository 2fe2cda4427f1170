import { describe, expect, it } from 'vitest';
import { H264KeyFrames, isH264KeyFrameStart, startingNalTypes } from './h264';

const nal = (type: number, ...rest: number[]) => [0x60 | type, ...rest];
const stapA = (...units: number[][]) => {
  const bytes = [0x78]; // NRI 3, type 24
  for (const unit of units) bytes.push(unit.length >> 8, unit.length & 0xff, ...unit);
  return Uint8Array.from(bytes);
};
const fuA = (type: number, start: boolean) =>
  Uint8Array.from([0x7c, (start ? 0x80 : 0) | type, 1, 2, 3]);

describe('H.264 key frame starts', () => {
  it('libwebrtc: a STAP-A with SPS and PPS opens the key frame, its IDR fragments do not', () => {
    expect(isH264KeyFrameStart(stapA(nal(7, 1, 2), nal(8, 3)), true)).toBe(true);
    expect(isH264KeyFrameStart(fuA(5, true), false)).toBe(false);
    expect(isH264KeyFrameStart(fuA(5, false), false)).toBe(false);
  });

  it('x264: a single SPS opens it; the PPS and the IDR after it in the same frame do not', () => {
    expect(isH264KeyFrameStart(Uint8Array.from(nal(7, 1)), true)).toBe(true);
    expect(isH264KeyFrameStart(Uint8Array.from(nal(8, 1)), false)).toBe(false);
    expect(isH264KeyFrameStart(Uint8Array.from(nal(5, 1)), false)).toBe(false);
  });

  it('an IDR that starts its frame opens a key frame (parameter sets out of band)', () => {
    expect(isH264KeyFrameStart(fuA(5, true), true)).toBe(true);
    expect(isH264KeyFrameStart(Uint8Array.from(nal(5, 1)), true)).toBe(true);
  });

  it('delta frames, fragments and empty payloads never do', () => {
    expect(isH264KeyFrameStart(Uint8Array.from(nal(1, 1)), true)).toBe(false);
    expect(isH264KeyFrameStart(fuA(1, true), true)).toBe(false);
    expect(isH264KeyFrameStart(new Uint8Array(), true)).toBe(false);
    expect(startingNalTypes(Uint8Array.from([0x78, 0, 9, 0x67]))).toEqual([7]);
  });

  it('x264 with slices: the SPS repeated before each IDR slice opens the key frame once', () => {
    const stream = new H264KeyFrames();
    const sps = Uint8Array.from(nal(7, 1));
    const pps = Uint8Array.from(nal(8, 1));
    const frame = (timestamp: number) =>
      [sps, pps, fuA(5, true), fuA(5, false), sps, pps, fuA(5, true), sps, pps, fuA(5, true)].map(
        (payload) => stream.opens(payload, timestamp),
      );
    expect(frame(3000)).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(stream.opens(fuA(1, true), 6000)).toBe(false);
    expect(frame(9000)[0]).toBe(true);
  });
});
