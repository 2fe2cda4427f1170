import { describe, expect, it } from 'vitest';
import { IVS_SEI_UUID, takeTrailer } from '../../../codecs/in-band';
import { InBandCarriage, STALE_MS } from './in-band-carriage';

const message = (byte: number) => ({ uuid: IVS_SEI_UUID, payload: Uint8Array.of(byte) });
/** A capture clock whose RTP timestamp is the capture time in 90 kHz ticks (none before `known`). */
const clock = (known = true) => ({
  rtpTimestampAt: (epochMs: number) => (known ? Math.round(epochMs * 90) : undefined),
});
const carried = (trailer: Uint8Array | undefined) =>
  trailer ? takeTrailer(Uint8Array.from([1, 2, ...trailer])).messages.map((m) => m.payload[0]) : [];

describe('InBandCarriage', () => {
  it('puts a message on the frame captured at its time, not on the frames before it', () => {
    const carriage = new InBandCarriage(clock());
    carriage.add(message(7), 1_000, 0, 0);
    expect(carried(carriage.frameEnds(900 * 90, false, 0))).toEqual([]);
    expect(carried(carriage.frameEnds(967 * 90, false, 0))).toEqual([]);
    expect(carried(carriage.frameEnds(1_000 * 90, false, 0))).toEqual([7]);
    expect(carried(carriage.frameEnds(1_033 * 90, false, 0))).toEqual([]);
  });

  it('repeats it on as many frames as its repeat count, then on key frames while it is new', () => {
    const carriage = new InBandCarriage(clock(false)); // no sender report yet: the next frame
    carriage.add(message(1), 0, 2, 0);
    expect(carried(carriage.frameEnds(1, false, 10))).toEqual([1]);
    expect(carried(carriage.frameEnds(2, false, 20))).toEqual([1]);
    expect(carried(carriage.frameEnds(3, false, 30))).toEqual([1]);
    expect(carried(carriage.frameEnds(4, false, 40))).toEqual([]);
    expect(carried(carriage.frameEnds(5, true, 50))).toEqual([1]);
    expect(carried(carriage.frameEnds(6, true, STALE_MS + 1))).toEqual([]);
  });

  it('drops a message whose frame never came in time', () => {
    const carriage = new InBandCarriage(clock());
    carriage.add(message(3), 10_000, 0, 0);
    expect(carried(carriage.frameEnds(10_000 * 90, false, STALE_MS + 1))).toEqual([]);
  });
});
