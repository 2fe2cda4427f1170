/**
 * A recorded segment's flight data (docs/flight-data.md#in-the-recordings, decision 0096): the
 * in-band messages that came with its frames, each with the media time of its frame, in a file
 * beside the segment (`{offsetMs}.flight`, protocol/src/recordings.ts). Binary, appended to while
 * the segment is written:
 *
 *   "TCF1"                                   the file's magic and version, once
 *   then per message:
 *   [time: u32][uuid: 16 bytes][length: u16][payload: length bytes]
 *
 * big-endian; `time` in ms from the segment's first frame (its own media time 0, where a player
 * puts the segment's offset); `uuid` the message's (IVS's for the SDK's and the stage's own);
 * `payload` as it came (a MISB ST 0601 packet from the synthetic cameras). A reader takes the
 * whole records and stops at one cut short: a file being written may end inside one.
 *
 * Plain `Uint8Array`s: the recorder writes it, the web app reads it.
 */

export const FLIGHT_FILE_MAGIC = new Uint8Array([0x54, 0x43, 0x46, 0x31]); // "TCF1"

const UUID_BYTES = 16;
const HEAD_BYTES = 4 + UUID_BYTES + 2;
/** The longest time a record can say (u32 ms: 49 days, far past a segment). */
const MAX_TIME_MS = 0xffff_ffff;
const MAX_PAYLOAD_BYTES = 0xffff;

export interface RecordedInBandMessage {
  /** Ms from the segment's first frame. */
  timeMs: number;
  uuid: Uint8Array;
  payload: Uint8Array;
}

/** One record's bytes; throws a RangeError for a time or a payload the format cannot hold. */
export function encodeFlightRecord({ timeMs, uuid, payload }: RecordedInBandMessage): Uint8Array {
  const time = Math.round(timeMs);
  if (!(time >= 0 && time <= MAX_TIME_MS)) throw new RangeError(`time ${timeMs} ms out of range`);
  if (uuid.length !== UUID_BYTES) throw new RangeError('a uuid is 16 bytes');
  if (payload.length > MAX_PAYLOAD_BYTES) throw new RangeError('payload over 65,535 bytes');
  const out = new Uint8Array(HEAD_BYTES + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, time);
  out.set(uuid, 4);
  view.setUint16(4 + UUID_BYTES, payload.length);
  out.set(payload, HEAD_BYTES);
  return out;
}

/**
 * The records of a flight data file (or of its start, while written), in order; a file without
 * the magic has none.
 */
export function readFlightRecords(file: Uint8Array): RecordedInBandMessage[] {
  if (file.length < FLIGHT_FILE_MAGIC.length) return [];
  for (let index = 0; index < FLIGHT_FILE_MAGIC.length; index += 1) {
    if (file[index] !== FLIGHT_FILE_MAGIC[index]) return [];
  }
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const records: RecordedInBandMessage[] = [];
  let at = FLIGHT_FILE_MAGIC.length;
  while (at + HEAD_BYTES <= file.length) {
    const length = view.getUint16(at + 4 + UUID_BYTES);
    const end = at + HEAD_BYTES + length;
    if (end > file.length) break;
    records.push({
      timeMs: view.getUint32(at),
      uuid: file.slice(at + 4, at + 4 + UUID_BYTES),
      payload: file.slice(at + HEAD_BYTES, end),
    });
    at = end;
  }
  return records;
}
