/**
 * The picture size an H.264 key frame's sequence parameter set gives (ITU-T H.264 7.3.2.1.1,
 * 7.4.2.1.1): for a simulcast layer's size in the stats and for ranking layers
 * (server/media/publisher/video-layers.ts), as vp8.ts reads VP8's frame header. Only the fields up to the frame cropping are read.
 */

const NAL_SPS = 7;
const STAP_A = 24;
/** Profiles whose SPS carries chroma format, bit depths and scaling matrices (7.3.2.1.1). */
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

/** The size in the SPS that begins in this RTP payload (a single NAL unit or in a STAP-A). */
export function h264PacketSize(payload: Uint8Array): { width: number; height: number } | undefined {
  const type = (payload[0] ?? 0) & 0x1f;
  if (type === NAL_SPS) return h264SpsSize(payload);
  if (type !== STAP_A) return undefined;
  for (let offset = 1; offset + 2 < payload.length;) {
    const size = ((payload[offset] ?? 0) << 8) | (payload[offset + 1] ?? 0);
    if (size === 0) break;
    const unit = payload.subarray(offset + 2, offset + 2 + size);
    if (((unit[0] ?? 0) & 0x1f) === NAL_SPS) return h264SpsSize(unit);
    offset += 2 + size;
  }
  return undefined;
}

/** The cropped picture size of an SPS NAL unit (its header byte first); undefined if malformed. */
export function h264SpsSize(nal: Uint8Array): { width: number; height: number } | undefined {
  try {
    return readSize(new BitReader(withoutEmulationPrevention(nal.subarray(1))));
  } catch {
    return undefined;
  }
}

function readSize(bits: BitReader): { width: number; height: number } {
  const profile = bits.bits(8);
  bits.bits(16); // constraint flags, level
  bits.ue(); // seq_parameter_set_id
  let chromaFormat = 1;
  if (HIGH_PROFILES.has(profile)) {
    chromaFormat = bits.ue();
    if (chromaFormat === 3) bits.bits(1); // separate_colour_plane_flag
    bits.ue(); // bit_depth_luma_minus8
    bits.ue(); // bit_depth_chroma_minus8
    bits.bits(1); // qpprime_y_zero_transform_bypass_flag
    if (bits.bits(1) === 1) {
      for (let list = 0; list < (chromaFormat === 3 ? 12 : 8); list += 1) {
        if (bits.bits(1) === 1) skipScalingList(bits, list < 6 ? 16 : 64);
      }
    }
  }
  bits.ue(); // log2_max_frame_num_minus4
  const pictureOrderCountType = bits.ue();
  if (pictureOrderCountType === 0) bits.ue();
  else if (pictureOrderCountType === 1) {
    bits.bits(1);
    bits.se();
    bits.se();
    const cycle = bits.ue();
    for (let index = 0; index < cycle; index += 1) bits.se();
  }
  bits.ue(); // max_num_ref_frames
  bits.bits(1); // gaps_in_frame_num_value_allowed_flag
  const widthInMacroblocks = bits.ue() + 1;
  const heightInMapUnits = bits.ue() + 1;
  const frameMacroblocksOnly = bits.bits(1);
  if (frameMacroblocksOnly === 0) bits.bits(1); // mb_adaptive_frame_field_flag
  bits.bits(1); // direct_8x8_inference_flag
  let crop = { left: 0, right: 0, top: 0, bottom: 0 };
  if (bits.bits(1) === 1) {
    crop = { left: bits.ue(), right: bits.ue(), top: bits.ue(), bottom: bits.ue() };
  }
  // Table 6-1: 4:2:0 halves both ways, 4:2:2 across; monochrome and 4:4:4 crop in luma samples.
  const cropX = chromaFormat === 1 || chromaFormat === 2 ? 2 : 1;
  const cropY = (chromaFormat === 1 ? 2 : 1) * (2 - frameMacroblocksOnly);
  return {
    width: widthInMacroblocks * 16 - cropX * (crop.left + crop.right),
    height: (2 - frameMacroblocksOnly) * heightInMapUnits * 16 - cropY * (crop.top + crop.bottom),
  };
}

function skipScalingList(bits: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let index = 0; index < size; index += 1) {
    if (next !== 0) next = (last + bits.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

/** The RBSP: every 0x03 after two zero bytes removed (7.4.1). */
function withoutEmulationPrevention(bytes: Uint8Array): Uint8Array {
  const out: number[] = [];
  let zeros = 0;
  for (const byte of bytes) {
    if (zeros >= 2 && byte === 0x03) {
      zeros = 0;
      continue;
    }
    out.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Uint8Array.from(out);
}

/** Reads bits most significant first; throws past the end (a malformed SPS). */
class BitReader {
  private position = 0;

  constructor(private readonly bytes: Uint8Array) {}

  bits(count: number): number {
    let value = 0;
    for (let index = 0; index < count; index += 1) {
      const byte = this.bytes[this.position >> 3];
      if (byte === undefined) throw new RangeError('past the end of the SPS');
      value = value * 2 + ((byte >> (7 - (this.position & 7))) & 1);
      this.position += 1;
    }
    return value;
  }

  /** Unsigned Exp-Golomb (9.1). */
  ue(): number {
    let leadingZeros = 0;
    while (this.bits(1) === 0) {
      leadingZeros += 1;
      if (leadingZeros > 31) throw new RangeError('an Exp-Golomb code too long');
    }
    return 2 ** leadingZeros - 1 + this.bits(leadingZeros);
  }

  /** Signed Exp-Golomb (9.1.1). */
  se(): number {
    const code = this.ue();
    return code % 2 === 1 ? (code + 1) / 2 : -(code / 2);
  }
}
