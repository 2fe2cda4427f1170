/**
 * Reads just enough of an H.264 RTP payload (RFC 6184, packetization-mode 1) to tell where a key
 * frame starts, as vp8.ts does for VP8: a viewer's forwarding starts there, never mid-frame.
 *
 * Encoders send a key frame's parameter sets in band before it, each its own way: libwebrtc as a
 * STAP-A (SPS, PPS) then the IDR in FU-As; x264 through GStreamer as single SPS and PPS packets
 * then the IDR; some only the IDR (their parameter sets are in the SDP). So a key frame starts at
 * a packet that carries an SPS, or at the first packet of a frame when that packet starts an IDR.
 */

const NAL_IDR = 5;
const NAL_SPS = 7;
const STAP_A = 24;
const FU_A = 28;
/** forbidden_zero_bit: 1 says the unit may hold bit errors or syntax violations. */
const F_BIT = 0x80;

/** The types of the NAL units that begin in this payload (an FU-A's only when it starts one). */
export function startingNalTypes(payload: Uint8Array): number[] {
  const first = payload[0];
  if (first === undefined) return [];
  const type = first & 0x1f;
  if (type >= 1 && type <= 23) return [type];
  if (type === STAP_A) {
    const types: number[] = [];
    // After the STAP-A header: (16-bit size, NAL unit) repeated.
    for (let offset = 1; offset + 2 < payload.length;) {
      const size = ((payload[offset] ?? 0) << 8) | (payload[offset + 1] ?? 0);
      const header = payload[offset + 2];
      if (size === 0 || header === undefined) break;
      types.push(header & 0x1f);
      offset += 2 + size;
    }
    return types;
  }
  if (type === FU_A) {
    const fuHeader = payload[1];
    if (fuHeader === undefined || (fuHeader & 0x80) === 0) return [];
    return [fuHeader & 0x1f];
  }
  return [];
}

/**
 * Whether one frame's payloads, in order, hold only whole NAL units: every fragment (FU-A) from
 * its start to its end, every aggregate (STAP-A) filled exactly by its units, and no unit whose F
 * bit says it may hold errors (RFC 6184 5.3). Anything else is a frame that lost a piece.
 */
export function h264PayloadsWhole(payloads: readonly Uint8Array[]): boolean {
  let inFragment = false;
  for (const payload of payloads) {
    const indicator = payload[0];
    if (indicator === undefined || indicator & F_BIT) return false;
    const type = indicator & 0x1f;
    if (type === FU_A) {
      const fuHeader = payload[1];
      if (fuHeader === undefined || payload.length < 3) return false;
      const starts = (fuHeader & 0x80) !== 0;
      if (starts === inFragment) return false; // a start inside a fragment, or a piece without one
      inFragment = (fuHeader & 0x40) === 0;
    } else if (inFragment || !(type === STAP_A ? stapFilled(payload) : type >= 1 && type <= 23)) {
      return false;
    }
  }
  return !inFragment;
}

/** A STAP-A's (16-bit size, NAL unit) pairs fill it exactly, each unit with its F bit clear. */
function stapFilled(payload: Uint8Array): boolean {
  let offset = 1;
  while (offset < payload.length) {
    const size = ((payload[offset] ?? 0) << 8) | (payload[offset + 1] ?? 0);
    const header = payload[offset + 2];
    if (size === 0 || header === undefined || header & F_BIT) return false;
    offset += 2 + size;
  }
  return offset === payload.length && payload.length > 1;
}

/** Whether the packet opens a key frame; `firstOfFrame`: the first packet of its timestamp. */
export function isH264KeyFrameStart(payload: Uint8Array, firstOfFrame: boolean): boolean {
  const types = startingNalTypes(payload);
  if (types.includes(NAL_SPS)) return true;
  return firstOfFrame && types.includes(NAL_IDR);
}

/** Key frame starts in one H.264 stream: once per frame, however many SPSs the frame carries. */
export class H264KeyFrames {
  private lastTimestamp: number | undefined;
  private keyFrameTimestamp: number | undefined;

  /** Whether the packet (its payload and RTP timestamp) opens a key frame. */
  opens(payload: Uint8Array, timestamp: number): boolean {
    const firstOfFrame = timestamp !== this.lastTimestamp;
    this.lastTimestamp = timestamp;
    if (timestamp === this.keyFrameTimestamp) return false;
    if (!isH264KeyFrameStart(payload, firstOfFrame)) return false;
    this.keyFrameTimestamp = timestamp;
    return true;
  }
}

/** The NAL units of an Annex B stream (start codes of 3 or 4 bytes). */
export function annexBNalUnits(data: Uint8Array): Uint8Array[] {
  const units: Uint8Array[] = [];
  let start = -1;
  for (let index = 0; index + 2 < data.length; index += 1) {
    if (data[index] === 0 && data[index + 1] === 0 && data[index + 2] === 1) {
      if (start >= 0) {
        let end = index;
        if (end > start && data[end - 1] === 0) end -= 1;
        units.push(data.subarray(start, end));
      }
      start = index + 3;
      index += 2;
    }
  }
  if (start >= 0 && start < data.length) units.push(data.subarray(start));
  return units;
}

/** The RFC 6381 codec string of an H.264 stream from its SPS (`avc1.PPCCLL`). */
export function avcCodecString(sps: Uint8Array): string {
  const hex = (byte: number | undefined) => (byte ?? 0).toString(16).padStart(2, '0');
  return `avc1.${hex(sps[1])}${hex(sps[2])}${hex(sps[3])}`;
}
