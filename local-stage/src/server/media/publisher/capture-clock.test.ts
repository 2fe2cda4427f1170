import { describe, expect, it } from 'vitest';
import { CaptureClock, compactNtp, epochMsFromNtp, ntpFromEpochMs } from './capture-clock';

describe('NTP timestamps', () => {
  it('writes the fraction of a second as a binary fraction (werift wrote its decimal digits)', () => {
    // 2026-01-01T00:00:00.500Z: half a second is 0x80000000 of the low word.
    const ntp = ntpFromEpochMs(Date.UTC(2026, 0, 1, 0, 0, 0, 500));
    expect(Number(ntp & 0xffff_ffffn)).toBe(0x8000_0000);
    expect(Number(ntp >> 32n)).toBe(Date.UTC(2026, 0, 1) / 1000 + 2_208_988_800);
  });

  it('reads back the time it was written from, within a microsecond', () => {
    const epochMs = 1_795_475_329_220.168;
    expect(epochMsFromNtp(ntpFromEpochMs(epochMs))).toBeCloseTo(epochMs, 3);
  });

  it('gives the middle 32 bits for LSR (1/65536 s)', () => {
    const ntp = (0x1234_5678n << 32n) | 0x9abc_def0n;
    expect(compactNtp(ntp)).toBe(0x5678_9abc);
  });
});

describe("a publisher's capture clock", () => {
  const VIDEO = 90_000;

  it('is unknown before the first sender report', () => {
    expect(new CaptureClock(VIDEO).rtpTimestampAt(Date.now())).toBeUndefined();
  });

  it("maps a time to the publisher's RTP timestamp at that time", () => {
    const clock = new CaptureClock(VIDEO);
    const sentAt = 1_795_475_000_000;
    clock.onSenderReport({ ntpTimestamp: ntpFromEpochMs(sentAt), rtpTimestamp: 1_000 }, sentAt);
    expect(clock.rtpTimestampAt(sentAt + 1_000)).toBe(91_000);
    expect(clock.rtpTimestampAt(sentAt - 10)).toBe(100);
  });

  it('wraps the RTP timestamp at 2^32', () => {
    const clock = new CaptureClock(VIDEO);
    const sentAt = 1_795_475_000_000;
    clock.onSenderReport(
      { ntpTimestamp: ntpFromEpochMs(sentAt), rtpTimestamp: 2 ** 32 - 900 },
      sentAt,
    );
    expect(clock.rtpTimestampAt(sentAt + 20)).toBe(900);
  });

  it("puts a publisher's clock minutes off on the stage's by the least delayed report", () => {
    const clock = new CaptureClock(VIDEO);
    const skewMs = -180_000; // the publisher's clock is 3 minutes behind
    const stageNow = 1_795_475_000_000;
    // Three reports, one second apart, delayed 40, 2 and 25 ms on their way.
    for (const [index, delayMs] of [40, 2, 25].entries()) {
      const sentAt = stageNow + index * 1_000;
      clock.onSenderReport(
        { ntpTimestamp: ntpFromEpochMs(sentAt + skewMs), rtpTimestamp: index * VIDEO },
        sentAt + delayMs,
      );
    }
    // The frame captured at stageNow + 2.5 s (stage clock) has RTP timestamp 2.5 s of ticks,
    // mapped within the least delay (2 ms, 180 ticks).
    const mapped = clock.rtpTimestampAt(stageNow + 2_500) ?? 0;
    expect(Math.abs(mapped - 2.5 * VIDEO)).toBeLessThanOrEqual(180);
  });
});
