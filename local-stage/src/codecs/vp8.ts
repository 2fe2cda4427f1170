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

/**
 * What a VP8 payload descriptor numbers (RFC 7741 4.2): the picture ID (7 or 15 bits) and the
 * TL0PICIDX, where present. Each simulcast encoding numbers its own, from its own random start.
 */
export interface Vp8Numbering {
  pictureId: number | undefined;
  /** The picture ID's width: 7, or 15 when its M bit is set. */
  pictureIdBits: 7 | 15;
  tl0PicIdx: number | undefined;
}

/** Where a descriptor's picture ID and TL0PICIDX are (byte offsets), if it has them whole. */
function numberingOffsets(
  payload: Uint8Array,
): { pictureId?: number; pictureIdBits: 7 | 15; tl0PicIdx?: number } | undefined {
  const first = payload[0];
  const flags = payload[1];
  if (first === undefined || (first & 0x80) === 0 || flags === undefined) return undefined;
  const found: { pictureId?: number; pictureIdBits: 7 | 15; tl0PicIdx?: number } = {
    pictureIdBits: 7,
  };
  let offset = 2;
  if (flags & 0x80) {
    found.pictureId = offset;
    found.pictureIdBits = (payload[offset] ?? 0) & 0x80 ? 15 : 7;
    offset += found.pictureIdBits === 15 ? 2 : 1;
  }
  if (flags & 0x40) {
    found.tl0PicIdx = offset;
    offset += 1;
  }
  if (offset > payload.length) return undefined;
  if (found.pictureId === undefined && found.tl0PicIdx === undefined) return undefined;
  return found;
}

/** A packet's picture ID and TL0PICIDX; undefined when its descriptor carries neither. */
export function vp8Numbering(payload: Uint8Array): Vp8Numbering | undefined {
  const offsets = numberingOffsets(payload);
  if (!offsets) return undefined;
  const at = (index: number) => payload[index] ?? 0;
  let pictureId: number | undefined;
  if (offsets.pictureId !== undefined) {
    pictureId =
      offsets.pictureIdBits === 15
        ? ((at(offsets.pictureId) & 0x7f) << 8) | at(offsets.pictureId + 1)
        : at(offsets.pictureId) & 0x7f;
  }
  return {
    pictureId,
    pictureIdBits: offsets.pictureIdBits,
    tl0PicIdx: offsets.tl0PicIdx === undefined ? undefined : at(offsets.tl0PicIdx),
  };
}

/**
 * A copy of `payload` whose picture ID is moved on by `pictureIdShift` and its TL0PICIDX by
 * `tl0Shift`, each modulo its width; `payload` itself is left as it is (every viewer's copy of a
 * packet shares it). A payload without the fields is returned as it is.
 */
export function renumberVp8(payload: Buffer, pictureIdShift: number, tl0Shift: number): Buffer {
  const offsets = numberingOffsets(payload);
  if (!offsets) return payload;
  const copy = Buffer.from(payload);
  const at = offsets.pictureId;
  if (at !== undefined && offsets.pictureIdBits === 15) {
    const value = ((((copy[at] ?? 0) & 0x7f) << 8) + (copy[at + 1] ?? 0) + pictureIdShift) & 0x7fff;
    copy[at] = 0x80 | (value >> 8);
    copy[at + 1] = value & 0xff;
  } else if (at !== undefined) {
    copy[at] = ((copy[at] ?? 0) + pictureIdShift) & 0x7f;
  }
  if (offsets.tl0PicIdx !== undefined) {
    copy[offsets.tl0PicIdx] = ((copy[offsets.tl0PicIdx] ?? 0) + tl0Shift) & 0xff;
  }
  return copy;
}
