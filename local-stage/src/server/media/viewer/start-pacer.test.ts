// The start of a viewer's video: its first frame at once, what follows for a second spread at a
// pace, in order, then at once again (decision 0102).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RtpHeader, RtpPacket } from 'werift';
import { MIN_START_PACE, START_PACE_FACTOR, START_PACING_MS, StartPacer } from './start-pacer';

const PACKET_BYTES = 1_200;

let sequenceNumber = 0;
/** A frame of `count` packets, its last one marked. */
function frame(count: number): RtpPacket[] {
  return Array.from({ length: count }, (_, index) => {
    sequenceNumber += 1;
    return new RtpPacket(
      new RtpHeader({ sequenceNumber, marker: index === count - 1, payloadType: 96 }),
      Buffer.alloc(PACKET_BYTES),
    );
  });
}

let now = 0;
let sent: { sequenceNumber: number; at: number }[] = [];
let layerBitrate = 900_000;

function pacer() {
  return new StartPacer(
    (packet) => sent.push({ sequenceNumber: packet.header.sequenceNumber, at: now }),
    () => layerBitrate,
    () => now,
  );
}

/** Moves the clock (and the pacer's timers) on by `ms`, 1 ms at a time. */
function advance(ms: number) {
  for (let step = 0; step < ms; step += 1) {
    now += 1;
    vi.advanceTimersByTime(1);
  }
}

beforeEach(() => {
  vi.useFakeTimers();
  now = 0;
  sent = [];
  layerBitrate = 900_000;
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the start of a viewer video, paced', () => {
  it('sends the first frame at once and spreads the frames held after it at the pace', () => {
    const paced = pacer();
    const keyFrame = frame(8);
    const held = [...frame(3), ...frame(3), ...frame(3)];
    paced.start([...keyFrame, ...held]);
    // The key frame whole, at once: the first picture waits for nothing.
    expect(sent.map((each) => each.sequenceNumber)).toEqual(
      keyFrame.map((packet) => packet.header.sequenceNumber),
    );
    advance(200);
    expect(sent.map((each) => each.sequenceNumber)).toEqual(
      [...keyFrame, ...held].map((packet) => packet.header.sequenceNumber),
    );
    // 9 packets of 1,200 bytes at 2.5 x 900 kbit/s: about 38 ms, not one burst.
    const heldSent = sent.slice(keyFrame.length);
    const spreadMs = heldSent.at(-1)!.at - heldSent[0]!.at;
    const paceMs = ((held.length - 1) * PACKET_BYTES * 8) / (START_PACE_FACTOR * 900);
    expect(spreadMs).toBeGreaterThanOrEqual(paceMs - 10);
    expect(spreadMs).toBeLessThanOrEqual(paceMs + 10);
  });

  it('sends a first frame still arriving when the video opens at once, and paces only after it', () => {
    const paced = pacer();
    const [opening, ...rest] = frame(10);
    paced.start([opening!]);
    // The key frame's other packets come after the video opened: none of them waits.
    for (const packet of rest) expect(paced.take(packet)).toBe(false);
    const next = frame(6);
    expect(next.map((packet) => paced.take(packet))).toEqual(next.map(() => true));
    expect(sent).toHaveLength(1);
    advance(100);
    expect(sent.map((each) => each.sequenceNumber)).toEqual(
      [opening!, ...next].map((packet) => packet.header.sequenceNumber),
    );
  });

  it('keeps the order: a packet that comes while others wait goes after them', () => {
    const paced = pacer();
    paced.start([...frame(2), ...frame(6)]);
    const late = frame(2);
    for (const packet of late) expect(paced.take(packet)).toBe(true);
    advance(100);
    const order = sent.map((each) => each.sequenceNumber);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.at(-1)).toBe(late.at(-1)!.header.sequenceNumber);
    expect(paced.waiting).toBe(0);
  });

  it('paces for its first second only: then a packet goes at once', () => {
    const paced = pacer();
    paced.start(frame(4));
    advance(START_PACING_MS - 1);
    expect(paced.take(frame(1)[0]!)).toBe(true);
    advance(10);
    const [after] = frame(1);
    expect(paced.take(after!)).toBe(false);
  });

  it('paces a layer not yet measured at the least pace', () => {
    layerBitrate = 0;
    const paced = pacer();
    paced.start([...frame(1), ...frame(10)]);
    advance(300);
    const heldSent = sent.slice(1);
    const spreadMs = heldSent.at(-1)!.at - heldSent[0]!.at;
    expect(spreadMs).toBeGreaterThanOrEqual((9 * PACKET_BYTES * 8) / (MIN_START_PACE / 1_000) - 10);
  });

  it('drops what waits when stopped, and takes nothing more', () => {
    const paced = pacer();
    paced.start([...frame(1), ...frame(20)]);
    paced.stop();
    advance(200);
    expect(sent).toHaveLength(1);
    expect(paced.take(frame(1)[0]!)).toBe(false);
  });
});
