/** Arithmetic on RTP's sequence numbers (16 bits) and timestamps (32 bits), across their wrap. */

export const TWO_TO_32 = 2 ** 32;

/** `value` modulo 2^32, never negative. */
export const mod32 = (value: number) => ((value % TWO_TO_32) + TWO_TO_32) % TWO_TO_32;

/** `a − b` for 16-bit sequence numbers, across the wrap: negative when `a` comes before `b`. */
export function int16Difference(a: number, b: number): number {
  const difference = (a - b) & 0xffff;
  return difference >= 0x8000 ? difference - 0x10000 : difference;
}

/** How far `a` is after `b`, 0 to 65535, for 16-bit sequence numbers (`b` itself is 0). */
export function int16Distance(a: number, b: number): number {
  return (a - b) & 0xffff;
}

/** `a − b` for 32-bit RTP timestamps, across the wrap. */
export function int32Difference(a: number, b: number): number {
  const difference = mod32(a - b);
  return difference >= 2 ** 31 ? difference - TWO_TO_32 : difference;
}
