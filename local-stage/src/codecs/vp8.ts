/**
 * Reads just enough of a VP8 RTP payload (RFC 7741) to tell where a key frame starts: the
 * payload descriptor, then the first byte of the VP8 frame header, whose lowest bit is 0 for a
 * key frame. A viewer's forwarding starts at such a packet, never in the middle of a frame.
 */
export function isVp8KeyFrameStart(payload: Uint8Array): boolean {
  const offset = frameHeaderOffset(payload);
  if (offset === undefined) return false;
  const header = payload[offset];
  return header !== undefined && (header & 0x01) === 0;
}

/**
 * The picture size a key frame's first packet carries (RFC 6386 9.1: after the 3-byte frame tag,
 * the start code 9d 01 2a, then 14-bit width and height, little-endian); undefined for any other
 * packet.
 */
export function vp8KeyFrameSize(
  payload: Uint8Array,
): { width: number; height: number } | undefined {
  const offset = frameHeaderOffset(payload);
  return offset === undefined ? undefined : keyFrameSizeAt(payload, offset);
}

/** A whole VP8 frame's picture size (as `vp8KeyFrameSize`); undefined for an inter frame. */
export function vp8FrameSize(frame: Uint8Array): { width: number; height: number } | undefined {
  return keyFrameSizeAt(frame, 0);
}

/** The size in a key frame's header at `offset`; undefined for an inter frame's or a short one. */
function keyFrameSizeAt(
  bytes: Uint8Array,
  offset: number,
): { width: number; height: number } | undefined {
  const at = (index: number) => bytes[offset + index] ?? -1;
  if ((at(0) & 0x01) !== 0) return undefined;
  if (at(3) !== 0x9d || at(4) !== 0x01 || at(5) !== 0x2a || at(9) === -1) return undefined;
  return {
    width: (at(6) | (at(7) << 8)) & 0x3fff,
    height: (at(8) | (at(9) << 8)) & 0x3fff,
  };
}

/** Whether the packet opens a VP8 frame (its descriptor's S bit, partition 0): a frame's first. */
export function opensVp8Frame(payload: Uint8Array): boolean {
  return frameHeaderOffset(payload) !== undefined;
}

/** Where the VP8 frame header starts, in a packet that opens partition 0; else undefined. */
function frameHeaderOffset(payload: Uint8Array): number | undefined {
  const first = payload[0];
  if (first === undefined) return undefined;
  const startOfPartition = (first & 0x10) !== 0;
  const partitionIndex = first & 0x07;
  if (!startOfPartition || partitionIndex !== 0) return undefined;
  return vp8DescriptorLength(payload);
}

/** The length of a packet's VP8 payload descriptor (RFC 7741 4.2): the frame's bytes follow. */
export function vp8DescriptorLength(payload: Uint8Array): number | undefined {
  const first = payload[0];
  if (first === undefined) return undefined;
  const extended = (first & 0x80) !== 0;
  let offset = 1;
  if (extended) {
    const flags = payload[offset];
    if (flags === undefined) return undefined;
    offset += 1;
    if (flags & 0x80) {
      const pictureId = payload[offset];
      if (pictureId === undefined) return undefined;
      offset += pictureId & 0x80 ? 2 : 1; // M bit: a 15-bit picture id
    }
    if (flags & 0x40) offset += 1; // TL0PICIDX
    if (flags & 0x30) offset += 1; // TID / KEYIDX
  }
  return offset;
}
