import { describe, expect, it } from 'vitest';
import { encodeFlightRecord, FLIGHT_FILE_MAGIC, readFlightRecords } from './recorded';

const uuid = new Uint8Array(16).fill(7);
const file = (...parts: Uint8Array[]) =>
  Uint8Array.from(Buffer.concat([FLIGHT_FILE_MAGIC, ...parts]));

describe('a recorded flight data file', () => {
  it('reads back each record with its time, uuid and payload', () => {
    const records = readFlightRecords(
      file(
        encodeFlightRecord({ timeMs: 0, uuid, payload: Uint8Array.of(1, 2, 3) }),
        encodeFlightRecord({ timeMs: 1_967.4, uuid, payload: Uint8Array.of(4) }),
      ),
    );
    expect(records).toEqual([
      { timeMs: 0, uuid, payload: Uint8Array.of(1, 2, 3) },
      { timeMs: 1_967, uuid, payload: Uint8Array.of(4) },
    ]);
  });

  it('stops at a record cut short (a file being written), and reads nothing without its magic', () => {
    const whole = encodeFlightRecord({ timeMs: 5, uuid, payload: Uint8Array.of(9, 9) });
    const cut = encodeFlightRecord({ timeMs: 40, uuid, payload: Uint8Array.of(1, 2, 3, 4) });
    expect(readFlightRecords(file(whole, cut.subarray(0, cut.length - 1)))).toHaveLength(1);
    expect(readFlightRecords(whole)).toEqual([]);
  });

  it('refuses what it cannot hold', () => {
    expect(() => encodeFlightRecord({ timeMs: -1, uuid, payload: Uint8Array.of(1) })).toThrow(
      RangeError,
    );
    expect(() =>
      encodeFlightRecord({ timeMs: 0, uuid: uuid.subarray(0, 8), payload: Uint8Array.of(1) }),
    ).toThrow(RangeError);
  });
});
