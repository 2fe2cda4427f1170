/**
 * In-band messages carried in the video (docs/decisions/0094-in-band-messages.md), as Amazon IVS
 * real-time stages carry them: a payload of up to 1 KB with a 16-byte UUID, on a frame.
 *
 * - H.264: an SEI NAL unit of type `user_data_unregistered` (payload type 5) before the frame's
 *   first slice, as the IVS Web Broadcast SDK writes it: its UUID, its payload, the RBSP stop bit,
 *   with emulation prevention. Decoders ignore it; the stage passes it on untouched.
 * - VP8 has no SEI. The local stage appends a trailer to the frame's last packet for a viewer that
 *   asked for in-band messages, and the local SDK takes it off before the decoder sees the frame:
 *   each message as `[length: u16][uuid: 16 bytes][payload]`, then `[trailer length: u16]` and the
 *   magic `TCIB`. A frame without the magic is passed on as it is.
 *
 * And the publisher's rules, IVS's own (`LocalStageStream.insertSeiMessage`): a payload of 1 to
 * 1,024 bytes, a repeat count of 0 to 30, and at most 10,240 bytes a second counting the repeats.
 *
 * Plain `Uint8Array`s and no Node or DOM API: the SDK's worker, the camera process and the stage
 * all use it.
 */

/** The UUID the IVS Web Broadcast SDK writes on every SEI message it inserts. */
export const IVS_SEI_UUID = new Uint8Array([
  0x9e, 0x50, 0x4e, 0xa5, 0xee, 0x5a, 0x4f, 0x02, 0x94, 0x9f, 0xb0, 0x33, 0xa3, 0x76, 0x8d, 0xa2,
]);

export const MAX_PAYLOAD_BYTES = 1_024;
export const MAX_REPEAT_COUNT = 30;
export const MAX_BYTES_PER_SECOND = 10_240;

export interface InBandMessage {
  uuid: Uint8Array;
  payload: Uint8Array;
}

const UUID_BYTES = 16;
const SEI_NAL_TYPE = 6;
const USER_DATA_UNREGISTERED = 5;
/** `TCIB`: Tailcam in-band. */
const TRAILER_MAGIC = [0x54, 0x43, 0x49, 0x42] as const;
const TRAILER_END_BYTES = 2 + TRAILER_MAGIC.length;

// H.264 SEI

/** An SEI NAL unit (with its 4-byte start code) carrying `message` as user_data_unregistered. */
export function seiNalUnit(message: InBandMessage): Uint8Array {
  const size = UUID_BYTES + message.payload.length;
  const rbsp: number[] = [SEI_NAL_TYPE, USER_DATA_UNREGISTERED];
  let remaining = size;
  while (remaining >= 255) {
    rbsp.push(255);
    remaining -= 255;
  }
  rbsp.push(remaining, ...message.uuid, ...message.payload, 0x80);
  // Emulation prevention: no 00 00 0x (x ≤ 3) inside the NAL unit.
  const escaped: number[] = [0, 0, 0, 1];
  let zeros = 0;
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 3) {
      escaped.push(3);
      zeros = 0;
    }
    escaped.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Uint8Array.from(escaped);
}

/** `frame` (Annex B) with `messages` as SEI NAL units before its first slice. */
export function withSeiMessages(frame: Uint8Array, messages: InBandMessage[]): Uint8Array {
  if (messages.length === 0) return frame;
  const units = messages.map(seiNalUnit);
  const at = firstSliceStart(frame);
  const out = new Uint8Array(frame.length + units.reduce((sum, unit) => sum + unit.length, 0));
  out.set(frame.subarray(0, at), 0);
  let offset = at;
  for (const unit of units) {
    out.set(unit, offset);
    offset += unit.length;
  }
  out.set(frame.subarray(at), offset);
  return out;
}

/** Every user_data_unregistered SEI message in an Annex B frame, in order. */
export function readSeiMessages(frame: Uint8Array): InBandMessage[] {
  const messages: InBandMessage[] = [];
  for (const { start, end } of nalUnits(frame)) {
    if ((frame[start] ?? 0) % 32 !== SEI_NAL_TYPE) continue;
    const rbsp = unescape(frame.subarray(start + 1, end));
    let at = 0;
    // sei_message()s until the RBSP trailing bits.
    while (at < rbsp.length && !(rbsp[at] === 0x80 && at === rbsp.length - 1)) {
      let type = 0;
      while (rbsp[at] === 255) {
        type += 255;
        at += 1;
      }
      type += rbsp[at] ?? 0;
      at += 1;
      let size = 0;
      while (rbsp[at] === 255) {
        size += 255;
        at += 1;
      }
      size += rbsp[at] ?? 0;
      at += 1;
      if (at + size > rbsp.length) break; // cut short: what came before still counts
      if (type === USER_DATA_UNREGISTERED && size >= UUID_BYTES) {
        messages.push({
          uuid: rbsp.slice(at, at + UUID_BYTES),
          payload: rbsp.slice(at + UUID_BYTES, at + size),
        });
      }
      at += size;
    }
  }
  return messages;
}

/** Where each NAL unit's header byte starts and its data ends, in an Annex B stream. */
function nalUnits(data: Uint8Array): { start: number; end: number }[] {
  const starts: { codeAt: number; start: number }[] = [];
  for (let index = 0; index + 2 < data.length; index += 1) {
    if (data[index] === 0 && data[index + 1] === 0 && data[index + 2] === 1) {
      const codeAt = index > 0 && data[index - 1] === 0 ? index - 1 : index;
      starts.push({ codeAt, start: index + 3 });
      index += 2;
    }
  }
  return starts.map(({ start }, index) => ({
    start,
    end: starts[index + 1]?.codeAt ?? data.length,
  }));
}

/** The offset of the start code of the first slice (NAL types 1–5), or the frame's end. */
function firstSliceStart(frame: Uint8Array): number {
  for (let index = 0; index + 3 < frame.length; index += 1) {
    if (frame[index] === 0 && frame[index + 1] === 0 && frame[index + 2] === 1) {
      const type = (frame[index + 3] ?? 0) % 32;
      if (type >= 1 && type <= 5) return index > 0 && frame[index - 1] === 0 ? index - 1 : index;
      index += 2;
    }
  }
  return frame.length;
}

/** The RBSP of a NAL unit's payload: each 00 00 03 loses its 03. */
function unescape(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  let zeros = 0;
  for (const byte of data) {
    if (zeros >= 2 && byte === 3) {
      zeros = 0;
      continue;
    }
    out.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Uint8Array.from(out);
}

// The VP8 trailer

/** The bytes to append to a frame's last packet to carry `messages`. */
export function trailer(messages: InBandMessage[]): Uint8Array {
  const body = messages.reduce((sum, message) => sum + 2 + UUID_BYTES + message.payload.length, 0);
  const out = new Uint8Array(body + TRAILER_END_BYTES);
  let at = 0;
  for (const { uuid, payload } of messages) {
    out[at] = (UUID_BYTES + payload.length) >> 8;
    out[at + 1] = (UUID_BYTES + payload.length) & 0xff;
    out.set(uuid.subarray(0, UUID_BYTES), at + 2);
    out.set(payload, at + 2 + UUID_BYTES);
    at += 2 + UUID_BYTES + payload.length;
  }
  out[at] = out.length >> 8;
  out[at + 1] = out.length & 0xff;
  out.set(TRAILER_MAGIC, at + 2);
  return out;
}

/**
 * A frame's messages and the frame without its trailer; a frame with no trailer (or one that does
 * not parse whole) comes back as it is, with none.
 */
export function takeTrailer(frame: Uint8Array): { frame: Uint8Array; messages: InBandMessage[] } {
  const none = { frame, messages: [] };
  const end = frame.length;
  if (end < TRAILER_END_BYTES) return none;
  for (let index = 0; index < TRAILER_MAGIC.length; index += 1) {
    if (frame[end - TRAILER_MAGIC.length + index] !== TRAILER_MAGIC[index]) return none;
  }
  const length = ((frame[end - 6] ?? 0) << 8) | (frame[end - 5] ?? 0);
  if (length < TRAILER_END_BYTES || length > end) return none;
  const start = end - length;
  const messages: InBandMessage[] = [];
  for (let at = start; at < end - TRAILER_END_BYTES;) {
    const size = ((frame[at] ?? 0) << 8) | (frame[at + 1] ?? 0);
    const next = at + 2 + size;
    if (size < UUID_BYTES || next > end - TRAILER_END_BYTES) return none;
    messages.push({
      uuid: frame.slice(at + 2, at + 2 + UUID_BYTES),
      payload: frame.slice(at + 2 + UUID_BYTES, next),
    });
    at = next;
  }
  return { frame: frame.subarray(0, start), messages };
}

// The publisher's rules

/** IVS's reasons for refusing an insert, with its names. */
export type InBandRefusal =
  'PAYLOAD_SIZE_INVALID' | 'INVALID_REPEAT_COUNT' | 'PAYLOAD_RATE_EXCEEDED';

/**
 * IVS's rules for `insertSeiMessage`: the payload's size and the repeat count, then the rate: the
 * bytes of the last second, and of the repeats still to go out, may not pass 10,240 with this one.
 */
export class InBandRateRules {
  private sent: { atMs: number; bytes: number }[] = [];

  constructor(
    private readonly framesPerSecond: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Undefined when the message may go; it is then counted. */
  check(payloadBytes: number, repeatCount: number): InBandRefusal | undefined {
    if (!(payloadBytes > 0) || payloadBytes > MAX_PAYLOAD_BYTES) return 'PAYLOAD_SIZE_INVALID';
    if (!Number.isInteger(repeatCount) || repeatCount < 0 || repeatCount > MAX_REPEAT_COUNT) {
      return 'INVALID_REPEAT_COUNT';
    }
    const now = this.now();
    this.sent = this.sent.filter((each) => each.atMs > now - 1_000);
    const past = this.sent.filter((each) => each.atMs <= now).reduce((sum, e) => sum + e.bytes, 0);
    const coming = this.sent.filter((each) => each.atMs > now).reduce((sum, e) => sum + e.bytes, 0);
    if (past + payloadBytes > MAX_BYTES_PER_SECOND) return 'PAYLOAD_RATE_EXCEEDED';
    if (coming + payloadBytes * Math.max(1, repeatCount) > MAX_BYTES_PER_SECOND) {
      return 'PAYLOAD_RATE_EXCEEDED';
    }
    this.sent.push({ atMs: now, bytes: payloadBytes });
    const frameMs = 1_000 / this.framesPerSecond;
    for (let repeat = 1; repeat <= repeatCount; repeat += 1) {
      this.sent.push({ atMs: now + repeat * frameMs, bytes: payloadBytes });
    }
    return undefined;
  }
}

/**
 * The messages waiting for a publisher's next frames, as the IVS SDK sends them: each goes on the
 * next frame, and again on as many frames after as its repeat count says.
 */
export class InBandQueue {
  private waiting: { message: InBandMessage; left: number }[] = [];

  add(message: InBandMessage, repeatCount: number): void {
    this.waiting.push({ message, left: repeatCount + 1 });
  }

  /** The messages for the frame going out now. */
  next(): InBandMessage[] {
    if (this.waiting.length === 0) return [];
    const messages = this.waiting.map((each) => each.message);
    for (const each of this.waiting) each.left -= 1;
    this.waiting = this.waiting.filter((each) => each.left > 0);
    return messages;
  }

  get size(): number {
    return this.waiting.length;
  }
}
