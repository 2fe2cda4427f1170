import { describe, expect, it } from 'vitest';

import {
  decodeFlightData,
  encodeFlightData,
  UAS_LS_VERSION,
  uasLocalSetChecksum,
  type FlightTelemetry,
} from './klv';

const telemetry: FlightTelemetry = {
  captureTimeMs: Date.UTC(2026, 10, 29, 13, 5, 7, 123) + 0.456,
  latitudeDeg: 47.4638,
  longitudeDeg: -122.3079,
  trueAltitudeM: 1042.7,
  headingDeg: 179.5,
  groundSpeedMps: 112.4,
  verticalSpeedMps: 12.7,
  tailNumber: 'N743AS',
  platformStatus: 8,
};

function fromHex(hex: string): Uint8Array {
  const digits = hex.replace(/\s+/g, '');
  return Uint8Array.from(digits.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join(' ');
}

function decoded(bytes: Uint8Array) {
  const result = decodeFlightData(bytes);
  if (!result.ok) throw new Error(result.message);
  return result;
}

/** A small deterministic generator (mulberry32), so a failing case can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('the flight data packet (MISB ST 0601)', () => {
  it('reads back what it wrote, within the resolution of each 0601 mapping', () => {
    const packet = encodeFlightData(telemetry);
    const result = decoded(packet);

    expect(result.unknownTags).toEqual([]);
    expect(result.byteLength).toBe(packet.length);
    const back = result.telemetry;
    expect(back.captureTimeMs).toBe(Date.UTC(2026, 10, 29, 13, 5, 7, 123) + 0.456);
    expect(back.tailNumber).toBe('N743AS');
    expect(back.uasLsVersion).toBe(UAS_LS_VERSION);
    expect(back.platformStatus).toBe(8);
    expect(back.latitudeDeg).toBeCloseTo(47.4638, 7); // 4.2e-8° a step
    expect(back.longitudeDeg).toBeCloseTo(-122.3079, 7); // 8.4e-8° a step
    expect(Math.abs(back.trueAltitudeM! - 1042.7)).toBeLessThanOrEqual(0.16); // 0.30 m a step
    expect(Math.abs(back.headingDeg! - 179.5)).toBeLessThanOrEqual(0.003); // 0.0055° a step
    expect(back.groundSpeedMps).toBe(112); // whole m/s
    expect(Math.abs(back.verticalSpeedMps! - 12.7)).toBeLessThanOrEqual(0.003); // 0.0055 m/s a step
  });

  it('is 72 bytes with a tail number: the key, a one-byte length, ten items and the checksum', () => {
    const packet = encodeFlightData(telemetry);
    expect(packet.length).toBe(72);
    expect(encodeFlightData({ ...telemetry, tailNumber: undefined }).length).toBe(64);
    expect(toHex(packet.subarray(0, 17))).toBe(
      '06 0e 2b 34 02 0b 01 01 0e 01 03 01 01 00 00 00 37',
    );
    // The time stamp first and the checksum last, as 0601 asks.
    expect(packet[17]).toBe(2);
    expect(toHex(packet.subarray(-4, -2))).toBe('01 02');
  });

  it('writes the example values of ST 0601 to the bytes the standard gives for them', () => {
    // ST 0601's per-item examples, as its conversions section gives them (also asserted by
    // klvdata's test/test_misb_0601.py and jmisb's PlatformVerticalSpeedTest).
    const packet = toHex(
      encodeFlightData({
        captureTimeMs: Date.UTC(2008, 9, 24, 0, 13, 29, 913),
        latitudeDeg: 60.1768229669783,
        longitudeDeg: 128.426759042045,
        trueAltitudeM: 14190.72,
        headingDeg: 159.974365,
        groundSpeedMps: 140,
        verticalSpeedMps: -61.887875,
      }),
    );
    expect(packet).toContain('02 08 00 04 59 f4 a6 aa 4a a8');
    expect(packet).toContain('05 02 71 c2');
    expect(packet).toContain('0d 04 55 95 b6 6d');
    expect(packet).toContain('0e 04 5b 53 60 c4');
    expect(packet).toContain('0f 02 c2 21');
    expect(packet).toContain('33 02 d3 fe');
    expect(packet).toContain('38 01 8c');
    expect(packet).toContain('41 01 13');
  });

  it("reads MISB ST 0902's example packet and verifies its checksum", () => {
    // The sample packet of MISB ST 0902.5 (Motion Imagery Sensor Minimum Metadata Set): 228
    // bytes with a long-form BER length, a nested Security Local Set and tags Tailcam does not
    // read, checksum 0xAA43. Quoted in the README of misb.js (github.com/vidterra/misb.js);
    // klvdata (github.com/paretech/klvdata) ships it as data/DynamicConstantMISMMSPacketData.bin
    // with tag 20 changed and the checksum not, and its decoder reads the values asserted here.
    const standard =
      '060e2b34020b01010e0103010100000081d2020800046050584e0180030a4d697373696f6e203132050271c2' +
      '0602fd3d070208b80a085072656461746f720b07454f204e6f73650c0e47656f646574696320574753383' +
      '40d045595b66d0e045b5360c40f02c2211002cd9c1102d9171204724a0a20130487f84b86140400000000' +
      '150403830926160212811704f101a229180414bc082b190234f3301c01010102010703052f2f5553410c01' +
      '070d060055005300411602000a4101065e220170f592f02373364af8aa9162c00f2eb2da16b74341000841' +
      'a0be365b5ab96a36450102aa43';
    const sample = fromHex(standard);
    const klvdataCopy = fromHex(standard.replace('140400000000', '14047dc55ece'));

    expect(decodeFlightData(klvdataCopy)).toMatchObject({
      ok: false,
      reason: 'checksum-mismatch',
    });
    const result = decoded(sample);

    expect(result.byteLength).toBe(228);
    expect(result.telemetry).toEqual({
      captureTimeMs: Date.UTC(2009, 0, 12, 22, 8, 22),
      headingDeg: expect.closeTo(159.97436484321355, 12),
      latitudeDeg: expect.closeTo(60.176822966978335, 12),
      longitudeDeg: expect.closeTo(128.42675904204452, 12),
      trueAltitudeM: expect.closeTo(14190.719462882427, 9),
      uasLsVersion: 6,
    });
    expect(result.unknownTags).toEqual([
      3, 6, 7, 10, 11, 12, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 48, 94,
    ]);
  });

  it("reads jmisb's packets, skipping a two-byte tag it does not know", () => {
    // github.com/WestRidgeSystems/jmisb, st0601/src/test/java/org/jmisb/st0601/ParserTest.java:
    // sensor latitude, longitude and true altitude (42.4036°, -71.1284°, 1258.3 m), then the
    // same with an unknown tag 0x90 0x00 (BER-OID for 2048) between them.
    const plain = decoded(
      fromHex('060e2b34020b01010e01030101000000 14 0d043c4eadfa 0e04cd6b784e 0f021bc4 01022dc4'),
    );
    const withUnknownTag = decoded(
      fromHex(
        '060e2b34020b01010e01030101000000 19 0d043c4eadfa 90 00 02 0a0b 0e04cd6b784e 0f021bc4 01023668',
      ),
    );

    for (const result of [plain, withUnknownTag]) {
      expect(result.telemetry.latitudeDeg).toBeCloseTo(42.4036, 6);
      expect(result.telemetry.longitudeDeg).toBeCloseTo(-71.1284, 6);
      expect(result.telemetry.trueAltitudeM).toBeCloseTo(1258.3, 0);
      expect(result.telemetry.captureTimeMs).toBeUndefined();
    }
    expect(withUnknownTag.unknownTags).toEqual([2048]);
  });

  it('refuses a packet whose checksum does not match, naming both sums', () => {
    const packet = encodeFlightData(telemetry);
    packet[30] = (packet[30] ?? 0) ^ 0x01;

    const result = decodeFlightData(packet);

    expect(result).toMatchObject({ ok: false, reason: 'checksum-mismatch' });
    expect(!result.ok && result.message).toMatch(
      /^Not a flight data packet: checksum 0x[0-9a-f]{4} sent, 0x[0-9a-f]{4} computed\.$/,
    );
  });

  it('refuses every single-bit error anywhere in a packet', () => {
    const packet = encodeFlightData(telemetry);
    for (let bit = 0; bit < packet.length * 8; bit += 1) {
      const damaged = packet.slice();
      damaged[bit >> 3] = (damaged[bit >> 3] ?? 0) ^ (1 << (bit & 7));
      expect(decodeFlightData(damaged).ok, `bit ${bit}`).toBe(false);
    }
  });

  it('calls every cut-short packet truncated', () => {
    const packet = encodeFlightData(telemetry);
    for (let length = 0; length < packet.length; length += 1) {
      expect(decodeFlightData(packet.subarray(0, length))).toMatchObject({
        ok: false,
        reason: 'truncated',
      });
    }
  });

  it('refuses bytes of another key, and reads only its own packet when more bytes follow', () => {
    const packet = encodeFlightData(telemetry);
    const otherKey = packet.slice();
    otherKey[11] = 0x02; // the ST 0102 Security Local Set's key differs here
    const followed = Uint8Array.from([...packet, 0x06, 0x0e, 0x2b]);

    expect(decodeFlightData(otherKey)).toMatchObject({ ok: false, reason: 'not-a-uas-local-set' });
    expect(decoded(followed).byteLength).toBe(packet.length);
  });

  it('refuses an item of the wrong length, and a packet without a checksum', () => {
    const body = [0x05, 0x03, 0x71, 0xc2, 0x00]; // heading in 3 bytes, 2 expected
    const wrongLength = Uint8Array.from([
      ...fromHex('060e2b34020b01010e01030101000000'),
      body.length + 4,
      ...body,
      0x01,
      0x02,
      0,
      0,
    ]);
    const sum = uasLocalSetChecksum(wrongLength, wrongLength.length - 2);
    wrongLength[wrongLength.length - 2] = sum >> 8;
    wrongLength[wrongLength.length - 1] = sum & 0xff;
    const noChecksum = fromHex('060e2b34020b01010e01030101000000 04 05 02 71 c2');

    expect(decodeFlightData(wrongLength)).toEqual({
      ok: false,
      reason: 'bad-item',
      message: 'Not a flight data packet: tag 5 has 3 bytes, 2 expected.',
    });
    expect(decodeFlightData(noChecksum)).toMatchObject({ ok: false, reason: 'missing-checksum' });
  });

  it('reads a value 0601 marks as out of range as missing, never as a figure', () => {
    const packet = encodeFlightData(telemetry);
    const latitudeAt = toHex(packet).split(' ').indexOf('0d') + 2;
    packet.set([0x80, 0x00, 0x00, 0x00], latitudeAt);
    const sum = uasLocalSetChecksum(packet, packet.length - 2);
    packet.set([sum >> 8, sum & 0xff], packet.length - 2);

    const back = decoded(packet).telemetry;

    expect(back.latitudeDeg).toBeUndefined();
    expect(back.longitudeDeg).toBeCloseTo(-122.3079, 6);
  });

  it('never throws on random bytes or on damaged packets', () => {
    const next = random(44);
    const packet = encodeFlightData(telemetry);
    for (let round = 0; round < 2000; round += 1) {
      const noise = Uint8Array.from({ length: Math.floor(next() * 90) }, () =>
        Math.floor(next() * 256),
      );
      const damaged = packet.slice(0, Math.floor(next() * (packet.length + 1)));
      damaged[Math.floor(next() * damaged.length)] = Math.floor(next() * 256);
      expect(() => decodeFlightData(noise)).not.toThrow();
      expect(() => decodeFlightData(damaged)).not.toThrow();
      expect(() =>
        decodeFlightData(Uint8Array.from([...packet.subarray(0, 16), ...noise])),
      ).not.toThrow();
    }
  });

  it('throws a RangeError naming the field for a value 0601 cannot carry', () => {
    expect(() => encodeFlightData({ ...telemetry, latitudeDeg: 91 })).toThrow(
      new RangeError('latitudeDeg must be within ±90°, not 91'),
    );
    expect(() => encodeFlightData({ ...telemetry, trueAltitudeM: 19_001 })).toThrow(RangeError);
    expect(() => encodeFlightData({ ...telemetry, groundSpeedMps: -1 })).toThrow(RangeError);
    expect(() => encodeFlightData({ ...telemetry, verticalSpeedMps: Number.NaN })).toThrow(
      'verticalSpeedMps must be a finite number, not NaN',
    );
    expect(() => encodeFlightData({ ...telemetry, tailNumber: 'N743ÄS' })).toThrow(RangeError);
    expect(() => encodeFlightData({ ...telemetry, platformStatus: 13 })).toThrow(RangeError);
  });

  it('sends a heading of 360° or more as its remainder', () => {
    const back = decoded(encodeFlightData({ ...telemetry, headingDeg: 370 })).telemetry;
    expect(back.headingDeg).toBeCloseTo(10, 2);
  });
});
