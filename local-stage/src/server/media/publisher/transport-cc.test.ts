import { describe, expect, it } from 'vitest';
import {
  LARGE_DELTA,
  NOT_RECEIVED,
  SMALL_DELTA,
  TransportCcRecorder,
  decodeTransportFeedback,
  encodeTransportFeedback,
  type DecodedFeedback,
} from './transport-cc';

/** A feedback packet around `chunks` and `deltas` (bytes after the fixed part), as hex. */
function packetWith(statusCount: number, chunksAndDeltas: string): Buffer {
  const body = Buffer.from(chunksAndDeltas.replace(/\s/g, ''), 'hex');
  const padding = (4 - ((20 + body.length) % 4)) % 4;
  const packet = Buffer.alloc(20 + body.length + padding);
  packet[0] = 0x80 | (padding ? 0x20 : 0) | 15;
  packet[1] = 205;
  packet.writeUInt16BE(packet.length / 4 - 1, 2);
  packet.writeUInt32BE(1, 4);
  packet.writeUInt32BE(2, 8);
  packet.writeUInt16BE(100, 12);
  packet.writeUInt16BE(statusCount, 14);
  packet.writeUIntBE(10, 16, 3);
  packet[19] = 7;
  body.copy(packet, 20);
  if (padding) packet[packet.length - 1] = padding;
  return packet;
}

const statuses = (feedback: DecodedFeedback) => feedback.packets.map((packet) => packet.status);

describe('transport-wide CC feedback, read as the draft writes it', () => {
  it('reads §3.1.3 example 1: a run of 221 "packet not received"', () => {
    // |0|0 0|0 0 0 0 0 1 1 0 1 1 1 0 1| = 0x00dd
    const feedback = decodeTransportFeedback(packetWith(221, '00dd'));
    expect(feedback.chunkKinds).toEqual(['run-length']);
    expect(statuses(feedback)).toEqual(Array(221).fill(NOT_RECEIVED));
  });

  it('reads §3.1.3 example 2: a run of 24 "received, w/o recv delta"', () => {
    // |0|1 1|0 0 0 0 0 0 0 0 1 1 0 0 0| = 0x6018
    const feedback = decodeTransportFeedback(packetWith(24, '6018'));
    expect(statuses(feedback)).toEqual(Array(24).fill(3));
  });

  it('reads §3.1.4 example 1: 1 lost, 5 received, 3 lost, 3 received, 2 lost', () => {
    // |1|0|0 1 1 1 1 1 0 0 0 1 1 1 0 0| = 0x9f1c; the eight received have small deltas 1..8
    const feedback = decodeTransportFeedback(packetWith(14, '9f1c 0102030405060708'));
    expect(feedback.chunkKinds).toEqual(['one-bit-vector']);
    expect(statuses(feedback)).toEqual([0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0]);
    expect(feedback.packets.flatMap((packet) => packet.delta ?? [])).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
  });

  it('reads §3.1.4 example 2: 1 lost, 1 received w/o delta, 3 received, 2 lost', () => {
    // |1|1|0 0 1 1 0 1 0 1 0 1 0 0 0 0| = 0xcd50
    const feedback = decodeTransportFeedback(packetWith(7, 'cd50 0a0b0c'));
    expect(feedback.chunkKinds).toEqual(['two-bit-vector']);
    expect(statuses(feedback)).toEqual([0, 3, 1, 1, 1, 0, 0]);
  });

  it('reads the header: base sequence number, count, reference time, feedback count', () => {
    const feedback = decodeTransportFeedback(packetWith(221, '00dd'));
    expect(feedback).toMatchObject({
      senderSsrc: 1,
      mediaSsrc: 2,
      baseSequenceNumber: 100,
      packetStatusCount: 221,
      referenceTime: 10,
      feedbackPacketCount: 7,
    });
  });

  it('refuses a length field one word off', () => {
    const packet = packetWith(221, '00dd');
    packet.writeUInt16BE(packet.readUInt16BE(2) - 1, 2);
    expect(() => decodeTransportFeedback(packet)).toThrow(/length field/);
  });
});

describe('transport-wide CC feedback, written', () => {
  it('writes each received packet with its delta in 250 µs units from the reference time', () => {
    // Reference time 3 × 64 ms = 768 ticks; arrivals 770, 780, (lost), 1100 (a large delta).
    const packet = encodeTransportFeedback({
      senderSsrc: 0x11223344,
      mediaSsrc: 0x55667788,
      baseSequenceNumber: 65534,
      referenceTime: 3,
      feedbackPacketCount: 255,
      arrivals: [770, 780, undefined, 1100],
    });
    expect(packet.length % 4).toBe(0);
    expect(packet.readUInt16BE(2)).toBe(packet.length / 4 - 1);
    const feedback = decodeTransportFeedback(packet);
    expect(feedback.baseSequenceNumber).toBe(65534);
    expect(feedback.packets).toEqual([
      { sequenceNumber: 65534, status: SMALL_DELTA, delta: 2, arrival: 770 },
      { sequenceNumber: 65535, status: SMALL_DELTA, delta: 10, arrival: 780 },
      { sequenceNumber: 0, status: NOT_RECEIVED },
      { sequenceNumber: 1, status: LARGE_DELTA, delta: 320, arrival: 1100 },
    ]);
    expect(feedback.feedbackPacketCount).toBe(255);
  });

  it('writes a negative delta (reordering) as a large one', () => {
    const feedback = decodeTransportFeedback(
      encodeTransportFeedback({
        senderSsrc: 1,
        mediaSsrc: 2,
        baseSequenceNumber: 0,
        referenceTime: 1,
        feedbackPacketCount: 0,
        arrivals: [300, 280],
      }),
    );
    expect(feedback.packets.map((packet) => [packet.status, packet.delta])).toEqual([
      [SMALL_DELTA, 44],
      [LARGE_DELTA, -20],
    ]);
  });

  it('uses run length chunks for long runs and status vectors for mixed ones', () => {
    const arrivals: (number | undefined)[] = [];
    for (let i = 0; i < 30; i++) arrivals.push(1000 + i * 4); // a run of 30 received
    for (let i = 0; i < 14; i++) arrivals.push(i % 3 === 0 ? undefined : 1200 + i); // mixed
    for (let i = 0; i < 7; i++) arrivals.push(i % 2 ? 2000 + i * 300 : undefined); // large
    const feedback = decodeTransportFeedback(
      encodeTransportFeedback({
        senderSsrc: 1,
        mediaSsrc: 2,
        baseSequenceNumber: 10,
        referenceTime: 3,
        feedbackPacketCount: 0,
        arrivals,
      }),
    );
    expect(feedback.chunkKinds).toEqual(['run-length', 'one-bit-vector', 'two-bit-vector']);
    expect(feedback.packets.map((packet) => packet.arrival)).toEqual(arrivals);
  });

  it('writes the 24-bit reference time as a signed field that wraps', () => {
    const packet = encodeTransportFeedback({
      senderSsrc: 1,
      mediaSsrc: 2,
      baseSequenceNumber: 0,
      referenceTime: 0x1000005,
      feedbackPacketCount: 0,
      arrivals: [0x1000005 * 256],
    });
    expect(packet.readUIntBE(16, 3)).toBe(5);
  });
});

describe('the recorder', () => {
  /** A recorder fed `arrivals` ([sequence number, ms]), its next feedback decoded. */
  function feedbackAfter(
    recorder: TransportCcRecorder,
    arrivals: [number, number][],
  ): DecodedFeedback[] {
    for (const [sequenceNumber, ms] of arrivals) recorder.record(sequenceNumber, ms);
    return recorder.takeFeedback(42).map((packet) => decodeTransportFeedback(packet));
  }

  it('reports lost packets as not received, with the arrival times of the rest', () => {
    const recorder = new TransportCcRecorder(9);
    const [feedback] = feedbackAfter(recorder, [
      [5, 1000],
      [6, 1001.25],
      [8, 1010],
      [9, 1010.5],
    ]);
    expect(feedback?.baseSequenceNumber).toBe(5);
    expect(feedback?.packetStatusCount).toBe(5);
    expect(feedback?.referenceTime).toBe(Math.floor(4000 / 256));
    expect(feedback?.packets.map((packet) => packet.arrival)).toEqual([
      4000,
      4005,
      undefined,
      4040,
      4042,
    ]);
  });

  it('starts the next message where the last ended, counting the messages', () => {
    const recorder = new TransportCcRecorder(9);
    const [first] = feedbackAfter(recorder, [
      [1, 100],
      [2, 101],
    ]);
    const [second] = feedbackAfter(recorder, [[4, 150]]);
    expect(second?.baseSequenceNumber).toBe(3);
    expect(second?.packets.map((packet) => packet.status)).toEqual([NOT_RECEIVED, SMALL_DELTA]);
    expect(second?.feedbackPacketCount).toBe(((first?.feedbackPacketCount ?? 0) + 1) & 0xff);
    expect(feedbackAfter(recorder, [])).toEqual([]);
  });

  it('follows the 16-bit sequence number across its wrap', () => {
    const recorder = new TransportCcRecorder(9);
    feedbackAfter(recorder, [[65534, 10]]);
    const [feedback] = feedbackAfter(recorder, [
      [65535, 11],
      [0, 12],
      [1, 13],
    ]);
    expect(feedback?.baseSequenceNumber).toBe(65535);
    expect(feedback?.packets.map((packet) => packet.sequenceNumber)).toEqual([65535, 0, 1]);
    expect(feedback?.packets.every((packet) => packet.status === SMALL_DELTA)).toBe(true);
  });

  it('orders packets that arrive out of order by sequence number', () => {
    const recorder = new TransportCcRecorder(9);
    const [feedback] = feedbackAfter(recorder, [
      [10, 100],
      [12, 101],
      [11, 102],
    ]);
    expect(feedback?.packets.map((packet) => [packet.sequenceNumber, packet.arrival])).toEqual([
      [10, 400],
      [11, 408],
      [12, 404],
    ]);
  });

  it('reports a packet arriving after its number was reported lost, the rest "not received"', () => {
    const recorder = new TransportCcRecorder(9);
    feedbackAfter(recorder, [
      [1, 100],
      [3, 101],
    ]);
    const [late] = feedbackAfter(recorder, [[2, 140]]);
    expect(late?.baseSequenceNumber).toBe(2);
    expect(late?.packets.map((packet) => [packet.sequenceNumber, packet.status])).toEqual([
      [2, SMALL_DELTA],
      [3, NOT_RECEIVED],
    ]);
  });

  it('splits a long stretch into messages whose deltas fit, each under an MTU', () => {
    const recorder = new TransportCcRecorder(9);
    const arrivals: [number, number][] = [];
    for (let i = 0; i < 600; i++) arrivals.push([i, 1000 + i * 0.5]);
    arrivals.push([600, 1000 + 10_000]); // 10 s later: beyond a large delta
    const packets = (() => {
      for (const [sequenceNumber, ms] of arrivals) recorder.record(sequenceNumber, ms);
      return recorder.takeFeedback(42);
    })();
    expect(packets.every((packet) => packet.length < 1200)).toBe(true);
    const messages = packets.map((packet) => decodeTransportFeedback(packet));
    const reported = messages.flatMap((message) => message.packets);
    expect(reported.map((packet) => packet.sequenceNumber)).toEqual(arrivals.map(([seq]) => seq));
    expect(reported.every((packet) => packet.status !== NOT_RECEIVED)).toBe(true);
    expect(reported.at(-1)?.arrival).toBe(11_000 * 4);
  });
});
