/**
 * STUN messages (RFC 8489) as far as the project makes and reads them itself: a request with its
 * attributes (and MESSAGE-INTEGRITY, for TURN's authenticated requests, RFC 8656), and an answer's
 * type and attributes. The doctor's TURN check (server) and the tests' coturn (local stage) share
 * them; the stage's own ICE is werift's.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const STUN_MAGIC_COOKIE = 0x2112a442;
export const STUN_METHOD = { BINDING: 0x0001, ALLOCATE: 0x0003, REFRESH: 0x0004 } as const;
/** The class bits of an answer's type: `method | SUCCESS` or `method | ERROR`. */
export const STUN_CLASS = { SUCCESS: 0x0100, ERROR: 0x0110 } as const;
export const STUN_ATTRIBUTE = {
  USERNAME: 0x0006,
  MESSAGE_INTEGRITY: 0x0008,
  ERROR_CODE: 0x0009,
  LIFETIME: 0x000d,
  REALM: 0x0014,
  NONCE: 0x0015,
  REQUESTED_TRANSPORT: 0x0019,
} as const;

export interface StunMessage {
  type: number;
  /** Its 12-byte transaction ID. */
  transactionId: Buffer;
  attributes: Map<number, Buffer>;
}

/** One attribute: type, length, value, padded to 4 bytes. */
export function stunAttribute(type: number, value: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16BE(type, 0);
  header.writeUInt16BE(value.length, 2);
  const padding = Buffer.alloc((4 - (value.length % 4)) % 4);
  return Buffer.concat([header, value, padding]);
}

/** A request of a new transaction; with `key`, MESSAGE-INTEGRITY over it (RFC 8489 §14.5). */
export function stunRequest(method: number, attributes: Buffer[] = [], key?: Buffer): Buffer {
  const body = Buffer.concat(attributes);
  const header = Buffer.alloc(20);
  header.writeUInt16BE(method, 0);
  header.writeUInt16BE(body.length + (key === undefined ? 0 : 24), 2);
  header.writeUInt32BE(STUN_MAGIC_COOKIE, 4);
  randomBytes(12).copy(header, 8);
  const message = Buffer.concat([header, body]);
  if (key === undefined) return message;
  const integrity = createHmac('sha1', key).update(message).digest();
  return Buffer.concat([message, stunAttribute(STUN_ATTRIBUTE.MESSAGE_INTEGRITY, integrity)]);
}

/** The message in `bytes`, or undefined when they are not one. */
export function parseStun(bytes: Buffer): StunMessage | undefined {
  if (bytes.length < 20 || bytes.readUInt32BE(4) !== STUN_MAGIC_COOKIE) return undefined;
  const attributes = new Map<number, Buffer>();
  let offset = 20;
  const end = Math.min(bytes.length, 20 + bytes.readUInt16BE(2));
  while (offset + 4 <= end) {
    const type = bytes.readUInt16BE(offset);
    const length = bytes.readUInt16BE(offset + 2);
    attributes.set(type, bytes.subarray(offset + 4, offset + 4 + length));
    offset += 4 + length + ((4 - (length % 4)) % 4);
  }
  return { type: bytes.readUInt16BE(0), transactionId: bytes.subarray(8, 20), attributes };
}

/** An error answer's code (401, 438...), from its ERROR-CODE attribute. */
export function stunErrorCode(answer: StunMessage): number | undefined {
  const value = answer.attributes.get(STUN_ATTRIBUTE.ERROR_CODE);
  return value === undefined || value.length < 4 ? undefined : value[2]! * 100 + value[3]!;
}
