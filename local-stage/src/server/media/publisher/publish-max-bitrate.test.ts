import { describe, expect, it } from 'vitest';
import { parsePublishMaxKbps, publishMaxBitrate } from './publish-max-bitrate';

describe('STAGE_PUBLISH_MAX_KBPS', () => {
  it('caps no aircraft when unset or empty', () => {
    const caps = parsePublishMaxKbps(undefined);
    expect(caps).toEqual({ everyAircraft: undefined, byAircraft: {} });
    expect(typeof caps !== 'string' && publishMaxBitrate(caps, 'N743AS')).toBeUndefined();
    expect(parsePublishMaxKbps(' ')).toEqual({ everyAircraft: undefined, byAircraft: {} });
  });

  it('caps every aircraft with one number, the named ones with tail=kbit/s', () => {
    const all = parsePublishMaxKbps('1500');
    const named = parsePublishMaxKbps('n743as=1500, N953AS = 800');
    const both = parsePublishMaxKbps('2000,N953AS=800');
    if (typeof all === 'string' || typeof named === 'string' || typeof both === 'string') {
      throw new Error('refused');
    }
    expect(publishMaxBitrate(all, 'N954AS')).toBe(1_500_000);
    expect(publishMaxBitrate(named, 'N743AS')).toBe(1_500_000);
    expect(publishMaxBitrate(named, 'N953AS')).toBe(800_000);
    expect(publishMaxBitrate(named, 'N954AS')).toBeUndefined();
    expect(publishMaxBitrate(both, 'N953AS')).toBe(800_000);
    expect(publishMaxBitrate(both, 'N954AS')).toBe(2_000_000);
  });

  it.each([
    ['fast', "'fast' is neither"],
    ['N1=900', 'unknown aircraft N1'],
    ['N743AS=10', '10 is out of range'],
    ['N743AS=900,N743AS=800', 'N743AS named twice'],
    ['900,800', 'two caps for every aircraft'],
    ['1.5', "'1.5' is neither"],
  ])('refuses %s, saying why', (value, why) => {
    const caps = parsePublishMaxKbps(value);
    expect(caps).toContain('STAGE_PUBLISH_MAX_KBPS must be kbit/s (50–100000)');
    expect(caps).toContain(why);
  });
});
