/**
 * STUN messages as the doctor's TURN check and the tests' coturn make and read them
 * (stun-message.ts): a request read back whole, its attributes padded, its MESSAGE-INTEGRITY the
 * HMAC a TURN server checks, and an error answer's code.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  parseStun,
  STUN_ATTRIBUTE,
  STUN_CLASS,
  STUN_METHOD,
  stunAttribute,
  stunErrorCode,
  stunRequest,
} from './stun-message';

describe('a STUN message', () => {
  it('is a request of a new transaction each time, read back with its attributes', () => {
    const username = stunAttribute(STUN_ATTRIBUTE.USERNAME, Buffer.from('12345:viewer'));
    const first = stunRequest(STUN_METHOD.ALLOCATE, [username]);
    const again = stunRequest(STUN_METHOD.ALLOCATE, [username]);
    const read = parseStun(first);
    expect(read?.type).toBe(STUN_METHOD.ALLOCATE);
    expect(read?.attributes.get(STUN_ATTRIBUTE.USERNAME)?.toString()).toBe('12345:viewer');
    expect(read?.transactionId.length).toBe(12);
    expect(read?.transactionId.equals(parseStun(again)!.transactionId)).toBe(false);
    // 12 bytes of value pad to 12, 13 to 16: every attribute starts on 4 bytes.
    expect(first.length).toBe(20 + 4 + 12);
    expect(stunAttribute(STUN_ATTRIBUTE.NONCE, Buffer.alloc(13)).length).toBe(4 + 16);
  });

  it('carries MESSAGE-INTEGRITY over itself with its length counting it (RFC 8489 §14.5)', () => {
    const key = Buffer.from('a key');
    const message = stunRequest(STUN_METHOD.REFRESH, [], key);
    expect(message.length).toBe(20 + 24);
    expect(message.readUInt16BE(2)).toBe(24);
    const integrity = parseStun(message)?.attributes.get(STUN_ATTRIBUTE.MESSAGE_INTEGRITY);
    const signed = message.subarray(0, 20);
    expect(integrity?.equals(createHmac('sha1', key).update(signed).digest())).toBe(true);
  });

  it('reads an error answer’s code, and nothing from bytes that are no STUN', () => {
    const answer = Buffer.concat([
      Buffer.from([0x01, 0x13, 0x00, 0x08, 0x21, 0x12, 0xa4, 0x42]),
      Buffer.alloc(12),
      stunAttribute(STUN_ATTRIBUTE.ERROR_CODE, Buffer.from([0, 0, 4, 1])),
    ]);
    const read = parseStun(answer)!;
    expect(read.type).toBe(STUN_METHOD.ALLOCATE | STUN_CLASS.ERROR);
    expect(stunErrorCode(read)).toBe(401);
    expect(parseStun(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).toBeUndefined();
  });
});
