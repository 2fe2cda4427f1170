/**
 * Reads just enough of a VP8 RTP payload (RFC 7741) to tell where a key frame starts: the
 * payload descriptor, then the first byte of the VP8 frame header, whose lowest bit is 0 for a
 * key frame. A viewer's forwarding starts at such a packet, never in the middle of a frame.
 */
export function isVp8KeyFrameStart(payload: Uint8Array): boolean {
  const first = payload[0];
  if (first === undefined) return false;
  const extended = (first & 0x80) !== 0;
  const startOfPartition = (first & 0x10) !== 0;
  const partitionIndex = first & 0x07;
  if (!startOfPartition || partitionIndex !== 0) return false;
  let offset = 1;
  if (extended) {
    const flags = payload[offset];
    if (flags === undefined) return false;
    offset += 1;
    if (flags & 0x80) {
      const pictureId = payload[offset];
      if (pictureId === undefined) return false;
      offset += pictureId & 0x80 ? 2 : 1; // M bit: a 15-bit picture id
    }
    if (flags & 0x40) offset += 1; // TL0PICIDX
    if (flags & 0x30) offset += 1; // TID / KEYIDX
  }
  const header = payload[offset];
  return header !== undefined && (header & 0x01) === 0;
}
