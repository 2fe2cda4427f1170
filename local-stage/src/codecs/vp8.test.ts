import { describe, expect, it } from 'vitest';
import { isVp8KeyFrameStart, renumberVp8, vp8KeyFrameSize, vp8Numbering } from './vp8';

describe('isVp8KeyFrameStart', () => {
  // Descriptor: X=1, S=1, PID=0; extension: I=1 with a 15-bit picture id; then the frame header.
  const withPictureId = (frameHeader: number, first = 0x90) =>
    new Uint8Array([first, 0x80, 0x81, 0x23, frameHeader, 0x00]);

  it('finds a key frame at the start of partition 0', () => {
    expect(isVp8KeyFrameStart(withPictureId(0x10))).toBe(true);
    expect(isVp8KeyFrameStart(new Uint8Array([0x10, 0x50]))).toBe(true); // no extension
  });

  it('refuses inter frames, continuation packets and other partitions', () => {
    expect(isVp8KeyFrameStart(withPictureId(0x11))).toBe(false); // P bit set: inter frame
    expect(isVp8KeyFrameStart(withPictureId(0x10, 0x80))).toBe(false); // S=0: a continuation
    expect(isVp8KeyFrameStart(withPictureId(0x10, 0x91))).toBe(false); // partition 1
  });

  it('skips a 7-bit picture id, TL0PICIDX and TID/KEYIDX', () => {
    expect(isVp8KeyFrameStart(new Uint8Array([0x90, 0xf0, 0x05, 0x01, 0x02, 0x10]))).toBe(true);
    expect(isVp8KeyFrameStart(new Uint8Array([0x90, 0xf0, 0x05, 0x01, 0x02, 0x11]))).toBe(false);
  });

  it('is false for truncated payloads', () => {
    expect(isVp8KeyFrameStart(new Uint8Array([]))).toBe(false);
    expect(isVp8KeyFrameStart(new Uint8Array([0x90, 0x80, 0x81]))).toBe(false);
  });
});

describe('vp8KeyFrameSize', () => {
  it("reads a key frame's width and height after its start code", () => {
    // Descriptor with a 15-bit picture id; frame tag (key frame), start code, 640 and 360.
    const keyFrame = new Uint8Array([
      0x90, 0x80, 0x81, 0x23, 0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0x68, 0x01,
    ]);
    expect(vp8KeyFrameSize(keyFrame)).toEqual({ width: 640, height: 360 });
  });

  it('is undefined for inter frames, continuations and truncated key frames', () => {
    expect(
      vp8KeyFrameSize(
        new Uint8Array([0x10, 0x11, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0x68, 0x01]),
      ),
    ).toBeUndefined();
    expect(
      vp8KeyFrameSize(
        new Uint8Array([0x00, 0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0x68, 0x01]),
      ),
    ).toBeUndefined();
    expect(
      vp8KeyFrameSize(new Uint8Array([0x10, 0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x80])),
    ).toBeUndefined();
  });
});

describe('vp8Numbering and renumberVp8', () => {
  // X=1, S=1; I, L and T; a 15-bit picture ID 0x0123; TL0PICIDX 0xfe; TID; then a frame byte.
  const libwebrtcs = () => Buffer.from([0x90, 0xe0, 0x81, 0x23, 0xfe, 0x40, 0x11]);

  it('reads a 15-bit or 7-bit picture ID and the TL0PICIDX; nothing from a descriptor without them', () => {
    expect(vp8Numbering(libwebrtcs())).toEqual({
      pictureId: 0x0123,
      pictureIdBits: 15,
      tl0PicIdx: 0xfe,
    });
    // A 7-bit picture ID, no TL0PICIDX.
    expect(vp8Numbering(Buffer.from([0x90, 0x80, 0x05, 0x10]))).toEqual({
      pictureId: 5,
      pictureIdBits: 7,
      tl0PicIdx: undefined,
    });
    expect(vp8Numbering(Buffer.from([0x10, 0x10]))).toBeUndefined(); // no extension
    expect(vp8Numbering(Buffer.from([0x90, 0x10, 0x10]))).toBeUndefined(); // only TID/KEYIDX
    expect(vp8Numbering(Buffer.from([0x90, 0x80, 0x81]))).toBeUndefined(); // cut short
  });

  it('moves both on, each wrapping at its width, in a copy; every other byte as it was', () => {
    const payload = libwebrtcs();
    const moved = renumberVp8(payload, 0x7fff - 0x0123 + 2, 3);
    expect(vp8Numbering(moved)).toEqual({ pictureId: 1, pictureIdBits: 15, tl0PicIdx: 1 });
    expect([moved[0], moved[1], moved[5], moved[6]]).toEqual([0x90, 0xe0, 0x40, 0x11]);
    expect(payload.equals(libwebrtcs())).toBe(true);
    const seven = renumberVp8(Buffer.from([0x90, 0x80, 0x7e, 0x10]), 3, 0);
    expect([...seven]).toEqual([0x90, 0x80, 0x01, 0x10]);
    const plain = Buffer.from([0x10, 0x10]);
    expect(renumberVp8(plain, 5, 5)).toBe(plain);
  });
});
