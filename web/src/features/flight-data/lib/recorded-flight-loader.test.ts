import { describe, expect, it, vi } from 'vitest';
import { RecordedFlightData } from './recorded-flight-data';
import { RecordedFlightLoader, type RecordedFlightSegment } from './recorded-flight-loader';

/** Finished 4 s segments from 0 to 100 s, and what each load asked for. */
function segments(load: (key: string) => Promise<ArrayBuffer | undefined>) {
  return Array.from({ length: 25 }, (_, index): RecordedFlightSegment => ({
    key: String(index * 4_000),
    startMs: index * 4_000,
    durationMs: 4_000,
    load: () => load(String(index * 4_000)),
  }));
}

describe('RecordedFlightLoader', () => {
  it('fetches only the segments near the playhead, each once', () => {
    const asked: string[] = [];
    const loader = new RecordedFlightLoader(new RecordedFlightData());
    loader.setSegments(
      segments((key) => {
        asked.push(key);
        return Promise.resolve(undefined);
      }),
    );
    loader.at(50_000);
    // 12 s behind (a segment ending after 38 s) to 20 s ahead (one starting by 70 s).
    expect(asked.map(Number)).toEqual([
      36_000, 40_000, 44_000, 48_000, 52_000, 56_000, 60_000, 64_000, 68_000,
    ]);
    loader.at(51_000);
    expect(asked).toHaveLength(9);
    loader.dispose();
  });

  it('tries a failed fetch again after 5 s, not at every look before', async () => {
    let now = 0;
    const asked: string[] = [];
    const loader = new RecordedFlightLoader(new RecordedFlightData(), () => now);
    loader.setSegments(
      segments((key) => {
        asked.push(key);
        return Promise.reject(new Error('offline'));
      }).slice(0, 1),
    );
    loader.at(1_000);
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    await Promise.resolve();
    now = 4_000;
    loader.at(1_500);
    expect(asked).toHaveLength(1);
    now = 5_000;
    loader.at(1_600);
    expect(asked).toHaveLength(2);
    loader.dispose();
  });
});
