/**
 * The flight data Tailcam carries with the picture, as a MISB ST 0601 (UAS Datalink Local Set)
 * packet (decision 0095, docs/flight-data.md): the 16-byte UAS LS key, a BER length, then
 * tag-length-value items (BER-OID tags) in 0601's own integer mappings, the checksum last. Any
 * 0601 decoder reads it. Plain TypeScript with no Node or DOM API: the camera process, the
 * player and the recorder share it.
 *
 * The decoder never throws: whatever bytes arrive (a lost or damaged SEI payload, another
 * publisher's KLV), it answers a `FlightDataDecodeResult`, rejected with a reason and a message
 * when the packet is not ours to read. The encoder throws a `RangeError` on a value 0601 cannot
 * carry: that is the caller's bug, not the network's.
 */

/** The UAS Datalink Local Set's universal key (ST 0601, SMPTE ST 336 UL). */
export const UAS_LOCAL_SET_KEY: Readonly<Uint8Array> = Uint8Array.of(
  0x06,
  0x0e,
  0x2b,
  0x34,
  0x02,
  0x0b,
  0x01,
  0x01,
  0x0e,
  0x01,
  0x03,
  0x01,
  0x01,
  0x00,
  0x00,
  0x00,
);

/** The ST 0601 revision whose mappings these are (ST 0601.19), sent in tag 65. */
export const UAS_LS_VERSION = 19;

/** The 0601 tags Tailcam writes and reads; every other tag is skipped on reading. */
export const UAS_TAG = {
  checksum: 1,
  precisionTimeStamp: 2,
  platformTailNumber: 4,
  platformHeadingAngle: 5,
  sensorLatitude: 13,
  sensorLongitude: 14,
  sensorTrueAltitude: 15,
  platformVerticalSpeed: 51,
  platformGroundSpeed: 56,
  uasLsVersionNumber: 65,
  platformStatus: 125,
} as const;

/** One instant of a flight in 0601's own units (degrees, metres, metres per second). */
export interface FlightTelemetry {
  /** Tag 2, Precision Time Stamp: when the frame was captured, ms since the Unix epoch (sent in µs). */
  captureTimeMs: number;
  /** Tag 13, Sensor Latitude, degrees (WGS 84), ±90. */
  latitudeDeg: number;
  /** Tag 14, Sensor Longitude, degrees (WGS 84), ±180. */
  longitudeDeg: number;
  /** Tag 15, Sensor True Altitude: metres above mean sea level, -900..19,000. */
  trueAltitudeM: number;
  /** Tag 5, Platform Heading Angle: degrees clockwise from true north, any value (sent mod 360). */
  headingDeg: number;
  /** Tag 56, Platform Ground Speed: m/s, 0..255. */
  groundSpeedMps: number;
  /** Tag 51, Platform Vertical Speed: m/s, positive up, ±180. */
  verticalSpeedMps: number;
  /** Tag 4, Platform Tail Number: printable ASCII, 1..127 characters. Optional. */
  tailNumber?: string;
  /**
   * Tag 125, Platform Status: 0601's enumeration of what the platform is doing (2
   * "Pre-flight-taxiing", 4 "Take-off", 10 "Landing"...; figures.ts maps it to a flight phase).
   * Optional; an integer 0..12.
   */
  platformStatus?: number;
}

/**
 * What a packet carried: any item may be missing (another encoder sends what it has), and an
 * item holding 0601's "out of range" value (latitude, longitude, vertical speed) reads as missing.
 */
export type DecodedFlightTelemetry = Partial<FlightTelemetry> & { uasLsVersion?: number };

export type FlightDataRejection =
  | 'not-a-uas-local-set'
  | 'truncated'
  | 'bad-length'
  | 'missing-checksum'
  | 'checksum-mismatch'
  | 'bad-item';

export type FlightDataDecodeResult =
  | {
      ok: true;
      telemetry: DecodedFlightTelemetry;
      /** Tags present in the packet that Tailcam does not read, in order of appearance. */
      unknownTags: number[];
      /** The packet's length from its key to its checksum; bytes after it were not read. */
      byteLength: number;
    }
  | { ok: false; reason: FlightDataRejection; message: string };

const KEY_LENGTH = 16;
const CHECKSUM_ITEM_LENGTH = 4;
const INT32_RANGE = 4_294_967_294; // ±(2^31 - 1): 0601 keeps -2^31 for "out of range"
const INT32_OUT_OF_RANGE = -0x8000_0000;
const INT16_RANGE = 65_534; // ±(2^15 - 1)
const INT16_OUT_OF_RANGE = -0x8000;
const ALTITUDE_MIN_M = -900;
const ALTITUDE_SPAN_M = 19_900;
const VERTICAL_SPEED_SPAN_MPS = 360;

/**
 * 0601's checksum: a 16-bit running sum of the packet's bytes from the first byte of the key up
 * to `length` (the checksum item's tag and length included, its value not), each byte at an even
 * offset counted as the high byte of a 16-bit word.
 */
export function uasLocalSetChecksum(packet: Uint8Array, length: number): number {
  let sum = 0;
  for (let i = 0; i < length; i += 1) {
    sum = (sum + ((packet[i] ?? 0) << (i % 2 === 0 ? 8 : 0))) & 0xffff;
  }
  return sum;
}

/** The packet for one instant: 72 bytes with a tail number and a status, see docs/flight-data.md. */
export function encodeFlightData(telemetry: FlightTelemetry): Uint8Array {
  const items: number[][] = [
    item(UAS_TAG.precisionTimeStamp, precisionTimeStampBytes(telemetry.captureTimeMs)),
  ];
  if (telemetry.tailNumber !== undefined) {
    items.push(item(UAS_TAG.platformTailNumber, tailNumberBytes(telemetry.tailNumber)));
  }
  items.push(
    item(UAS_TAG.platformHeadingAngle, uint(headingValue(telemetry.headingDeg), 2)),
    item(UAS_TAG.sensorLatitude, int(angleValue('latitudeDeg', telemetry.latitudeDeg, 90), 4)),
    item(UAS_TAG.sensorLongitude, int(angleValue('longitudeDeg', telemetry.longitudeDeg, 180), 4)),
    item(UAS_TAG.sensorTrueAltitude, uint(altitudeValue(telemetry.trueAltitudeM), 2)),
    item(UAS_TAG.platformVerticalSpeed, int(verticalSpeedValue(telemetry.verticalSpeedMps), 2)),
    item(UAS_TAG.platformGroundSpeed, uint(groundSpeedValue(telemetry.groundSpeedMps), 1)),
  );
  if (telemetry.platformStatus !== undefined) {
    items.push(item(UAS_TAG.platformStatus, [platformStatusValue(telemetry.platformStatus)]));
  }
  items.push(item(UAS_TAG.uasLsVersionNumber, [UAS_LS_VERSION]));
  const body = items.flat();
  const valueLength = body.length + CHECKSUM_ITEM_LENGTH;
  const packet = Uint8Array.from([
    ...UAS_LOCAL_SET_KEY,
    ...berLength(valueLength),
    ...body,
    UAS_TAG.checksum,
    2,
    0,
    0,
  ]);
  const checksum = uasLocalSetChecksum(packet, packet.length - 2);
  packet[packet.length - 2] = checksum >> 8;
  packet[packet.length - 1] = checksum & 0xff;
  return packet;
}

/** Reads one packet from the start of `bytes`; never throws (see the file's head). */
export function decodeFlightData(bytes: Uint8Array): FlightDataDecodeResult {
  for (let i = 0; i < Math.min(KEY_LENGTH, bytes.length); i += 1) {
    if (bytes[i] !== UAS_LOCAL_SET_KEY[i]) {
      return reject('not-a-uas-local-set', 'the bytes do not start with the UAS Local Set key');
    }
  }
  const length = readBerLength(bytes, KEY_LENGTH, bytes.length);
  if (length === 'truncated' || bytes.length <= KEY_LENGTH) {
    return reject('truncated', `the packet ends after ${bytes.length} bytes, inside its header`);
  }
  if (length === 'bad') {
    return reject('bad-length', 'the packet length is not a definite BER length of 1 to 4 bytes');
  }
  const end = length.next + length.value;
  if (end > bytes.length) {
    return reject('truncated', `the packet says ${end} bytes, ${bytes.length} arrived`);
  }
  const checksumAt = end - CHECKSUM_ITEM_LENGTH;
  if (
    checksumAt < length.next ||
    bytes[checksumAt] !== UAS_TAG.checksum ||
    bytes[checksumAt + 1] !== 2
  ) {
    return reject('missing-checksum', 'the packet does not end with a checksum item');
  }
  const sent = ((bytes[end - 2] ?? 0) << 8) | (bytes[end - 1] ?? 0);
  const computed = uasLocalSetChecksum(bytes, end - 2);
  if (sent !== computed) {
    return reject('checksum-mismatch', `checksum ${hex(sent)} sent, ${hex(computed)} computed`);
  }
  const telemetry: DecodedFlightTelemetry = {};
  const unknownTags: number[] = [];
  let at = length.next;
  while (at < checksumAt) {
    const tag = readBerOidTag(bytes, at, checksumAt);
    const itemLength = tag === null ? 'truncated' : readBerLength(bytes, tag.next, checksumAt);
    if (tag === null || typeof itemLength === 'string') {
      return reject('bad-item', `the item at byte ${at} has no readable tag and length`);
    }
    const valueEnd = itemLength.next + itemLength.value;
    if (valueEnd > checksumAt) {
      return reject('bad-item', `tag ${tag.value} at byte ${at} runs past the checksum`);
    }
    const value = bytes.subarray(itemLength.next, valueEnd);
    const problem = readItem(tag.value, value, telemetry, unknownTags);
    if (problem !== null) return reject('bad-item', problem);
    at = valueEnd;
  }
  return { ok: true, telemetry, unknownTags, byteLength: end };
}

/** Reads one item into `telemetry`; a problem's description, or null. */
function readItem(
  tag: number,
  value: Uint8Array,
  telemetry: DecodedFlightTelemetry,
  unknownTags: number[],
): string | null {
  const expected = ITEM_LENGTHS.get(tag);
  if (expected === undefined) {
    if (tag === UAS_TAG.checksum) return 'a checksum item stands before the last item';
    if (tag !== UAS_TAG.platformTailNumber) {
      unknownTags.push(tag);
      return null;
    }
    if (
      value.length < 1 ||
      value.length > 127 ||
      value.some((byte) => byte > 0x7e || byte < 0x20)
    ) {
      return `tag 4 (Platform Tail Number) is not 1 to 127 printable ASCII characters`;
    }
    telemetry.tailNumber = String.fromCharCode(...value);
    return null;
  }
  if (value.length !== expected) {
    return `tag ${tag} has ${value.length} bytes, ${expected} expected`;
  }
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  switch (tag) {
    case UAS_TAG.precisionTimeStamp:
      telemetry.captureTimeMs = Number(view.getBigUint64(0)) / 1000;
      break;
    case UAS_TAG.platformHeadingAngle:
      telemetry.headingDeg = (view.getUint16(0) * 360) / 0xffff;
      break;
    case UAS_TAG.sensorLatitude:
      setIfInRange(
        telemetry,
        'latitudeDeg',
        view.getInt32(0),
        INT32_OUT_OF_RANGE,
        180 / INT32_RANGE,
      );
      break;
    case UAS_TAG.sensorLongitude:
      setIfInRange(
        telemetry,
        'longitudeDeg',
        view.getInt32(0),
        INT32_OUT_OF_RANGE,
        360 / INT32_RANGE,
      );
      break;
    case UAS_TAG.sensorTrueAltitude:
      telemetry.trueAltitudeM = (view.getUint16(0) * ALTITUDE_SPAN_M) / 0xffff + ALTITUDE_MIN_M;
      break;
    case UAS_TAG.platformVerticalSpeed:
      setIfInRange(
        telemetry,
        'verticalSpeedMps',
        view.getInt16(0),
        INT16_OUT_OF_RANGE,
        VERTICAL_SPEED_SPAN_MPS / INT16_RANGE,
      );
      break;
    case UAS_TAG.platformGroundSpeed:
      telemetry.groundSpeedMps = view.getUint8(0);
      break;
    case UAS_TAG.uasLsVersionNumber:
      telemetry.uasLsVersion = view.getUint8(0);
      break;
    case UAS_TAG.platformStatus:
      telemetry.platformStatus = view.getUint8(0);
      break;
  }
  return null;
}

const ITEM_LENGTHS = new Map<number, number>([
  [UAS_TAG.precisionTimeStamp, 8],
  [UAS_TAG.platformHeadingAngle, 2],
  [UAS_TAG.sensorLatitude, 4],
  [UAS_TAG.sensorLongitude, 4],
  [UAS_TAG.sensorTrueAltitude, 2],
  [UAS_TAG.platformVerticalSpeed, 2],
  [UAS_TAG.platformGroundSpeed, 1],
  [UAS_TAG.uasLsVersionNumber, 1],
  [UAS_TAG.platformStatus, 1],
]);

function setIfInRange(
  telemetry: DecodedFlightTelemetry,
  field: 'latitudeDeg' | 'longitudeDeg' | 'verticalSpeedMps',
  raw: number,
  outOfRange: number,
  scale: number,
): void {
  if (raw !== outOfRange) telemetry[field] = raw * scale;
}

function reject(reason: FlightDataRejection, message: string): FlightDataDecodeResult {
  return { ok: false, reason, message: `Not a flight data packet: ${message}.` };
}

function hex(value: number): string {
  return `0x${value.toString(16).padStart(4, '0')}`;
}

/** A BER length at `at` (short form, or long form of 1 to 4 bytes), read up to `end`. */
function readBerLength(
  bytes: Uint8Array,
  at: number,
  end: number,
): { value: number; next: number } | 'truncated' | 'bad' {
  const first = bytes[at];
  if (at >= end || first === undefined) return 'truncated';
  if (first < 0x80) return { value: first, next: at + 1 };
  const count = first & 0x7f;
  if (count === 0 || count > 4) return 'bad';
  if (at + 1 + count > end) return 'truncated';
  let value = 0;
  for (let i = 1; i <= count; i += 1) value = value * 256 + (bytes[at + i] ?? 0);
  return { value, next: at + 1 + count };
}

/** A BER-OID tag at `at`: 7 bits a byte, the high bit set on every byte but the last. */
function readBerOidTag(
  bytes: Uint8Array,
  at: number,
  end: number,
): { value: number; next: number } | null {
  let value = 0;
  for (let i = at; i < end && i < at + 4; i += 1) {
    const byte = bytes[i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) return { value, next: i + 1 };
  }
  return null;
}

function item(tag: number, value: number[]): number[] {
  // Tailcam's tags are all below 128: a BER-OID tag of one byte.
  return [tag, ...berLength(value.length), ...value];
}

function berLength(length: number): number[] {
  if (length < 0x80) return [length];
  return length < 0x100 ? [0x81, length] : [0x82, length >> 8, length & 0xff];
}

function uint(value: number, byteCount: number): number[] {
  const bytes: number[] = [];
  for (let i = byteCount - 1; i >= 0; i -= 1) bytes.push(Math.floor(value / 256 ** i) % 256);
  return bytes;
}

function int(value: number, byteCount: number): number[] {
  return uint(value < 0 ? value + 256 ** byteCount : value, byteCount);
}

function finite(name: string, value: number): number {
  if (!Number.isFinite(value))
    throw new RangeError(`${name} must be a finite number, not ${value}`);
  return value;
}

function precisionTimeStampBytes(captureTimeMs: number): number[] {
  const micros = Math.round(finite('captureTimeMs', captureTimeMs) * 1000);
  if (micros < 0 || micros > Number.MAX_SAFE_INTEGER) {
    throw new RangeError(`captureTimeMs must be a time after 1970, not ${captureTimeMs}`);
  }
  return uint(micros, 8);
}

function tailNumberBytes(tailNumber: string): number[] {
  if (!/^[\x20-\x7e]{1,127}$/.test(tailNumber)) {
    throw new RangeError(`tailNumber must be 1 to 127 printable ASCII characters: ${tailNumber}`);
  }
  return [...tailNumber].map((character) => character.charCodeAt(0));
}

function headingValue(headingDeg: number): number {
  const degrees = ((finite('headingDeg', headingDeg) % 360) + 360) % 360;
  return Math.round((degrees * 0xffff) / 360);
}

function angleValue(name: string, degrees: number, limit: number): number {
  if (Math.abs(finite(name, degrees)) > limit) {
    throw new RangeError(`${name} must be within ±${limit}°, not ${degrees}`);
  }
  return Math.round((degrees * INT32_RANGE) / (2 * limit));
}

function altitudeValue(metres: number): number {
  finite('trueAltitudeM', metres);
  if (metres < ALTITUDE_MIN_M || metres > ALTITUDE_MIN_M + ALTITUDE_SPAN_M) {
    throw new RangeError(`trueAltitudeM must be within -900..19000 m, not ${metres}`);
  }
  return Math.round(((metres - ALTITUDE_MIN_M) * 0xffff) / ALTITUDE_SPAN_M);
}

function verticalSpeedValue(metresPerSecond: number): number {
  if (Math.abs(finite('verticalSpeedMps', metresPerSecond)) > VERTICAL_SPEED_SPAN_MPS / 2) {
    throw new RangeError(`verticalSpeedMps must be within ±180 m/s, not ${metresPerSecond}`);
  }
  return Math.round((metresPerSecond * INT16_RANGE) / VERTICAL_SPEED_SPAN_MPS);
}

function groundSpeedValue(metresPerSecond: number): number {
  finite('groundSpeedMps', metresPerSecond);
  if (metresPerSecond < 0 || metresPerSecond > 255) {
    throw new RangeError(`groundSpeedMps must be within 0..255 m/s, not ${metresPerSecond}`);
  }
  return Math.round(metresPerSecond);
}

function platformStatusValue(status: number): number {
  if (!Number.isInteger(status) || status < 0 || status > 12) {
    throw new RangeError(`platformStatus must be one of 0601's values 0..12, not ${status}`);
  }
  return status;
}
