/**
 * VP8 packets as libwebrtc sends them, for tests and benches: a descriptor with a 15-bit picture
 * ID, a TL0PICIDX and a temporal layer index (each simulcast encoding numbers its own pictures,
 * from a start of its own), then a key frame's header with its size, or an inter frame's.
 */
import { RtpHeader, RtpPacket } from 'werift';

export function libwebrtcVp8Packet(options: {
  ssrc: number;
  sequence: number;
  picture: { id: number; tl0: number };
  keyFrame?: boolean;
  /** A key frame's picture size. */
  size?: { width: number; height: number };
  /** The payload's length at least (filled after the frame header). */
  bytes?: number;
}): RtpPacket {
  const { id, tl0 } = options.picture;
  const { width, height } = options.size ?? { width: 640, height: 360 };
  const descriptor = [0x90, 0xe0, 0x80 | ((id >> 8) & 0x7f), id & 0xff, tl0 & 0xff, 0x00];
  const frame = options.keyFrame
    ? [0x00, 0, 0, 0x9d, 0x01, 0x2a, width & 0xff, width >> 8, height & 0xff, height >> 8]
    : [0x01, 0, 0, 0, 0];
  const header = [...descriptor, ...frame];
  const payload = Buffer.alloc(Math.max(options.bytes ?? 0, header.length), 0x55);
  payload.set(header, 0);
  const { sequence } = options;
  return new RtpPacket(
    new RtpHeader({
      ssrc: options.ssrc,
      sequenceNumber: sequence & 0xffff,
      timestamp: sequence * 3_000,
      payloadType: 96,
    }),
    payload,
  );
}
