import { describe, expect, it } from 'vitest';
import { h264PacketSize, h264SpsSize } from './h264-sps';

/** The SPS GStreamer's x264 sent (../../testing/fixtures/whip-gstreamer/), 320x240 baseline. */
const X264_SPS = Buffer.from('Z0LADNoFB+wFqDAwNSgAAAMACAAAAwD0eKFV', 'base64');

describe("an H.264 SPS's picture size", () => {
  it('reads a baseline SPS, with its emulation prevention bytes', () => {
    expect(h264SpsSize(X264_SPS)).toEqual({ width: 320, height: 240 });
  });

  it('finds the SPS alone in a packet or first in a STAP-A, as libwebrtc sends it', () => {
    expect(h264PacketSize(X264_SPS)).toEqual({ width: 320, height: 240 });
    const pps = [0x68, 0xce, 0x3c, 0x80];
    const stapA = Uint8Array.from([
      0x78,
      X264_SPS.length >> 8,
      X264_SPS.length & 0xff,
      ...X264_SPS,
      0,
      pps.length,
      ...pps,
    ]);
    expect(h264PacketSize(stapA)).toEqual({ width: 320, height: 240 });
    expect(h264PacketSize(Uint8Array.from([0x65, 0x88, 0x84]))).toBeUndefined(); // an IDR slice
  });

  it('is undefined for a truncated SPS', () => {
    expect(h264SpsSize(X264_SPS.subarray(0, 6))).toBeUndefined();
  });
});
