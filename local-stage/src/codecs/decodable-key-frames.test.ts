/**
 * Key frames put back together from RTP (FrameAssembler) and decoded (DecodableKeyFrames, then
 * decodeKeyFrame), as the thumbnail process does: a VP8 and an H.264 key frame that ffmpeg encodes
 * (libvpx, x264), cut into packets as RFC 7741 and RFC 6184 say, reassembled and decoded into a
 * JPEG of the picture's size. A frame missing a packet, or a frame that is not a key frame, gives
 * nothing.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { RtpHeader, RtpPacket } from 'werift';
import { DecodableKeyFrames } from './decodable-key-frames';
import { decodeKeyFrame, type EncodedKeyFrame } from './decode-key-frame';
import { annexBNalUnits } from './h264';
import { FrameAssembler } from './rtp-frames';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
const MTU = 1000;

/** One encoded frame of ffmpeg's test pattern at `size`, in `format` (ivf or h264). */
function encodeTestFrame(codec: 'libvpx' | 'libx264', format: 'ivf' | 'h264', size: string) {
  const result = spawnSync(
    'ffmpeg',
    [
      ...[
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        'lavfi',
        '-i',
        `testsrc=size=${size}:rate=30`,
      ],
      ...['-frames:v', '1', '-c:v', codec, '-pix_fmt', 'yuv420p', '-f', format, 'pipe:1'],
    ],
    { maxBuffer: 8 * 1024 * 1024 },
  );
  if (result.status !== 0) throw new Error(result.stderr.toString());
  return new Uint8Array(result.stdout);
}

function packets(payloads: Uint8Array[], firstSequence = 65_530, timestamp = 9_000): RtpPacket[] {
  return payloads.map((payload, index) => {
    const header = new RtpHeader({
      sequenceNumber: (firstSequence + index) & 0xffff,
      timestamp,
      payloadType: 96,
      marker: index === payloads.length - 1,
    });
    return new RtpPacket(header, Buffer.from(payload));
  });
}

/** VP8 payloads: a descriptor with a 15-bit picture id, S set on the first. */
function vp8Payloads(frame: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let offset = 0; offset < frame.length; offset += MTU) {
    const descriptor = [0x80 | (offset === 0 ? 0x10 : 0), 0x80, 0x80 | 0x12, 0x34];
    out.push(Uint8Array.of(...descriptor, ...frame.subarray(offset, offset + MTU)));
  }
  return out;
}

/** H.264 payloads: small NAL units alone, big ones in FU-As. */
function h264Payloads(annexB: Uint8Array): Uint8Array[] {
  const units: Uint8Array[] = [];
  let start = -1;
  for (let i = 0; i + 3 <= annexB.length; i += 1) {
    const three = annexB[i] === 0 && annexB[i + 1] === 0 && annexB[i + 2] === 1;
    if (!three) continue;
    if (start >= 0) units.push(annexB.subarray(start, annexB[i - 1] === 0 ? i - 1 : i));
    start = i + 3;
  }
  units.push(annexB.subarray(start));
  return units.flatMap((unit) => {
    if (unit.length <= MTU) return [unit];
    const header = unit[0] ?? 0;
    const pieces: Uint8Array[] = [];
    for (let offset = 1; offset < unit.length; offset += MTU) {
      const first = offset === 1;
      const last = offset + MTU >= unit.length;
      const fuHeader = (first ? 0x80 : 0) | (last ? 0x40 : 0) | (header & 0x1f);
      pieces.push(
        Uint8Array.of((header & 0xe0) | 28, fuHeader, ...unit.subarray(offset, offset + MTU)),
      );
    }
    return pieces;
  });
}

/** The key frames `frames` give, as the thumbnail process takes them. */
function keyFrames(codec: 'vp8' | 'h264', ...frames: RtpPacket[][]): EncodedKeyFrame[] {
  const decodable = new DecodableKeyFrames(codec);
  const out: EncodedKeyFrame[] = [];
  const assembler = new FrameAssembler(codec, 90_000, (frame) => {
    const keyFrame = decodable.take(frame);
    if (keyFrame) out.push(keyFrame);
  });
  for (const packet of frames.flat()) assembler.push(packet);
  return out;
}

describe.skipIf(!hasFfmpeg)('key frames from RTP', () => {
  it('puts a VP8 key frame together and decodes it at its size', async () => {
    const ivf = encodeTestFrame('libvpx', 'ivf', '640x360');
    const frame = ivf.subarray(
      44,
      44 + new DataView(ivf.buffer, ivf.byteOffset).getUint32(32, true),
    );
    const [keyFrame] = keyFrames('vp8', packets(vp8Payloads(frame)));
    expect(keyFrame).toMatchObject({ codec: 'vp8', width: 640, height: 360 });
    expect(Buffer.from(keyFrame?.data ?? [])).toEqual(Buffer.from(frame));
    const jpeg = await decodeKeyFrame(keyFrame!, { width: { min: 320, max: 640 } });
    expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it('puts an H.264 key frame from FU-As together, and widens a small picture to 320 px', async () => {
    const annexB = encodeTestFrame('libx264', 'h264', '160x90');
    const [keyFrame] = keyFrames('h264', packets(h264Payloads(annexB)));
    expect(keyFrame?.codec).toBe('h264');
    const jpeg = await decodeKeyFrame(keyFrame!, { width: { min: 320, max: 640 } });
    // The JPEG's SOF0 marker: precision, then height and width.
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    expect({ height: jpeg.readUInt16BE(sof + 5), width: jpeg.readUInt16BE(sof + 7) }).toEqual({
      width: 320,
      height: 180,
    });
  });

  it('gives nothing for a frame missing a packet, and for a frame that is not a key frame', () => {
    const frame = encodeTestFrame('libvpx', 'ivf', '640x360').subarray(44);
    const whole = packets(vp8Payloads(frame));
    expect(whole.length).toBeGreaterThan(2);
    expect(
      keyFrames(
        'vp8',
        whole.filter((_, i) => i !== 1),
      ),
    ).toEqual([]);
    const delta = whole.map((packet, i) =>
      i === 0
        ? new RtpPacket(packet.header, Buffer.of(...packet.payload.subarray(0, 4), 0x01))
        : packet,
    );
    expect(keyFrames('vp8', delta)).toEqual([]);
  });

  it('gives an H.264 key frame sent without its parameter sets the last ones seen in band', async () => {
    const annexB = encodeTestFrame('libx264', 'h264', '160x90');
    const payloads = h264Payloads(annexB);
    const types = payloads.map((payload) => (payload[0] ?? 0) & 0x1f);
    const idrOnly = payloads.filter((_, i) => types[i] !== 7 && types[i] !== 8);
    expect(idrOnly.length).toBeLessThan(payloads.length);
    const [, alone] = keyFrames(
      'h264',
      packets(payloads, 100, 9_000),
      packets(idrOnly, 100 + payloads.length, 12_000),
    );
    const unitTypes = annexBNalUnits(alone?.data ?? new Uint8Array()).map(
      (u) => (u[0] ?? 0) & 0x1f,
    );
    expect(unitTypes.slice(0, 2)).toEqual([7, 8]);
    const jpeg = await decodeKeyFrame(alone!, { width: { min: 320, max: 640 } });
    expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });
});
