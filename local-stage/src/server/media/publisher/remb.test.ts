import { describe, expect, it } from 'vitest';
import { ReceiveRateEstimate, decodeRemb, encodeRemb } from './remb';

describe('REMB', () => {
  it('writes the bitrate as an 18-bit mantissa and a 6-bit exponent, as the draft does', () => {
    const packet = encodeRemb(0x01020304, 1_500_000, [0xaabbccdd]);
    // 1,500,000 = 187,500 × 2³ (0x0edc6c: exponent 3, mantissa 0x2dc6c); 6 words, length 5.
    expect(packet.toString('hex')).toBe(
      '8fce0005' + '01020304' + '00000000' + '52454d42' + '01' + '0edc6c' + 'aabbccdd',
    );
    expect(decodeRemb(packet)).toEqual({
      senderSsrc: 0x01020304,
      bitrate: 1_500_000,
      ssrcs: [0xaabbccdd],
    });
  });

  it('keeps small bitrates exact and large ones within a part in 2¹⁷', () => {
    expect(decodeRemb(encodeRemb(1, 200_000, [])).bitrate).toBe(200_000);
    const large = decodeRemb(encodeRemb(1, 123_456_789, [1, 2])).bitrate;
    expect(Math.abs(large - 123_456_789) / 123_456_789).toBeLessThan(1 / 2 ** 17);
  });
});

describe('the receive-rate estimate of a REMB-only publisher', () => {
  it('says half as much again as arrives while little is lost', () => {
    const estimate = new ReceiveRateEstimate();
    for (let i = 0; i < 100; i++) estimate.record(7, i, 1250); // 1 Mbit/s over a second
    expect(estimate.update(1000)).toBeCloseTo(1_500_000, -3);
  });

  it('falls below what arrives when over a tenth is lost', () => {
    const estimate = new ReceiveRateEstimate();
    for (let i = 0; i < 100; i++) if (i % 4 !== 0) estimate.record(7, i, 1250);
    expect(estimate.update(1000)).toBeLessThan(750_000);
  });
});
