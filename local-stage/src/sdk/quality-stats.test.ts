import { describe, expect, it } from 'vitest';
import { networkQuality, NetworkQuality, qualityStats } from './quality-stats';

describe('networkQuality, from the packets lost since the last reading', () => {
  it.each([
    [{ received: 1000, lost: 0 }, NetworkQuality.EXCELLENT],
    [{ received: 995, lost: 5 }, NetworkQuality.GOOD],
    [{ received: 980, lost: 20 }, NetworkQuality.NORMAL],
    [{ received: 920, lost: 80 }, NetworkQuality.POOR],
    [{ received: 800, lost: 200 }, NetworkQuality.DOWN],
    [{ received: 0, lost: 0 }, NetworkQuality.DOWN],
  ])('%o since the last reading is %i', (growth, expected) => {
    const previous = { received: 5000, lost: 50 };
    const now = {
      received: previous.received + growth.received,
      lost: previous.lost + growth.lost,
    };
    expect(networkQuality(previous, now)).toBe(expected);
  });

  it('reads the video receiver of a report, counters as reported, audio left out', () => {
    const report = new Map<string, Record<string, unknown>>([
      ['A', { type: 'inbound-rtp', kind: 'audio', packetsReceived: 7 }],
      [
        'V',
        {
          type: 'inbound-rtp',
          kind: 'video',
          packetsReceived: 300,
          packetsLost: 0,
          framesDecoded: 90,
          frameWidth: 640,
          mid: '0',
        },
      ],
    ]) as unknown as RTCStatsReport;
    expect(qualityStats(report, 'video', undefined)?.stats).toEqual({
      packetsReceived: 300,
      packetsLost: 0,
      framesDecoded: 90,
      frameWidth: 640,
      networkQuality: NetworkQuality.EXCELLENT,
    });
    expect(
      qualityStats(new Map() as unknown as RTCStatsReport, 'video', undefined),
    ).toBeUndefined();
  });
});
