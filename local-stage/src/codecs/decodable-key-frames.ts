/**
 * Key frames as a decoder takes them (`decode-key-frame.ts`), from the frames `FrameAssembler`
 * gives: VP8 with its picture size (for the IVF header), H.264 with its parameter sets first, the
 * last ones seen in band when a key frame comes without them.
 */
import type { EncodedKeyFrame } from './decode-key-frame';
import { annexBNalUnits } from './h264';
import type { Frame } from './rtp-frames';
import { vp8FrameSize } from './vp8';

const NAL_SPS = 7;
const NAL_PPS = 8;
const START_CODE = [0, 0, 0, 1];

export class DecodableKeyFrames {
  /** H.264 parameter sets last seen in band. */
  private sps: Uint8Array | undefined;
  private pps: Uint8Array | undefined;

  constructor(readonly codec: 'vp8' | 'h264') {}

  /** `frame` as a decodable key frame; undefined for any other frame. */
  take(frame: Frame): EncodedKeyFrame | undefined {
    if (this.codec === 'vp8') {
      const size = frame.keyFrame ? vp8FrameSize(frame.data) : undefined;
      return size && { codec: 'vp8', data: frame.data, ...size };
    }
    const units = annexBNalUnits(frame.data);
    const sps = units.findLast((unit) => ((unit[0] ?? 0) & 0x1f) === NAL_SPS);
    const pps = units.findLast((unit) => ((unit[0] ?? 0) & 0x1f) === NAL_PPS);
    this.sps = sps ?? this.sps;
    this.pps = pps ?? this.pps;
    if (!frame.keyFrame) return undefined;
    const missing = [sps ? undefined : this.sps, pps ? undefined : this.pps].filter(
      (unit) => unit !== undefined,
    );
    const data = Buffer.concat([
      ...missing.flatMap((unit) => [Buffer.from(START_CODE), unit]),
      frame.data,
    ]);
    return { codec: 'h264', data };
  }
}
