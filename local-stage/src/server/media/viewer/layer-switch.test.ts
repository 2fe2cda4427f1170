import { RtpHeader, RtpPacket } from 'werift';
import { describe, expect, it } from 'vitest';
import { KeyFrameRequests } from '../publisher/key-frame-requests';
import { LAYER_SILENT_MS, VideoLayer, VideoLayers } from '../publisher/video-layers';
import { vp8Numbering } from '../../../codecs/vp8';
import { libwebrtcVp8Packet } from '../../../testing/vp8-packets';
import { LayerSwitch } from './layer-switch';

/** A VP8 payload: a key frame's first packet of `width`x`height`, or an inter frame's. */
function vp8Payload(keyFrame: boolean, width = 640, height = 360, bytes = 5): Buffer {
  if (!keyFrame) return Buffer.concat([Buffer.from([0x10, 0x01]), Buffer.alloc(bytes - 2)]);
  return Buffer.from([
    0x10,
    0x00,
    0x00,
    0x00,
    0x9d,
    0x01,
    0x2a,
    width & 0xff,
    width >> 8,
    height & 0xff,
    height >> 8,
  ]);
}

/** The simulcast layers' SSRCs, and each one's size (q 160x90, h 320x180, f 640x360). */
const SIZES: Record<number, [number, number]> = { 1: [160, 90], 2: [320, 180], 3: [640, 360] };

function packet(ssrc: number, sequenceNumber: number, timestamp: number, keyFrame = false) {
  const [width, height] = SIZES[ssrc] ?? [640, 360];
  return new RtpPacket(
    new RtpHeader({ ssrc, sequenceNumber, timestamp, payloadType: 96 }),
    // Inter frames as large as their layer's, so a layer's rate ranks it before its size is known.
    vp8Payload(keyFrame, width, height, Math.round(width / 10)),
  );
}

function layer(rid: string | null, asked: string[] = []): VideoLayer {
  return new VideoLayer({
    rid,
    mimeType: 'video/VP8',
    keyFrames: () =>
      new KeyFrameRequests({
        sendRequest: () => {
          asked.push(rid ?? 'single');
          return true;
        },
        pendingMs: 250,
        minIntervalMs: 0,
        viewerIntervalMs: 1_000,
      }),
  });
}

/** Three layers sending, as a publisher's video would: each packet taken in, then chosen from. */
function simulcast() {
  const asked: string[] = [];
  const [q, h, f] = [layer('q', asked), layer('h', asked), layer('f', asked)] as const;
  const layers = new VideoLayers([q, h, f]);
  const viewer = new LayerSwitch({
    target: () => layers.best,
    askKeyFrame: (wanted) => wanted.keyFrames.request(),
  });
  /** A packet of `from` arriving at `now`: the viewer's copy of it, if it gets it. */
  const take = (from: VideoLayer, rtp: RtpPacket, now: number) => {
    const keyFrameStart = from.receive(rtp, now);
    layers.update(now);
    const copy = rtp.clone();
    return viewer.accept(copy, from, keyFrameStart, now) ? copy : undefined;
  };
  /** The same: the header the viewer gets, if it gets the packet. */
  const arrive = (from: VideoLayer, rtp: RtpPacket, now: number) => take(from, rtp, now)?.header;
  return { q, h, f, layers, viewer, arrive, take, asked };
}

describe('a publisher of one encoding', () => {
  it('is one layer, always the best, forwarded with its own numbers from its first key frame', () => {
    const single = layer(null);
    const layers = new VideoLayers([single]);
    expect(layers.best).toBe(single); // before any packet: today's behaviour
    const viewer = new LayerSwitch({ target: () => layers.best, askKeyFrame: () => undefined });
    const forwarded: number[] = [];
    for (const [index, keyFrame] of [false, true, false, false].entries()) {
      const rtp = packet(1111, 60_000 + index, 9_000 * index, keyFrame);
      const keyFrameStart = single.receive(rtp, index * 33);
      if (viewer.accept(rtp, single, keyFrameStart, index * 33)) {
        forwarded.push(rtp.header.sequenceNumber);
        expect(rtp.header.timestamp).toBe(9_000 * index);
      }
    }
    expect(forwarded).toEqual([60_001, 60_002, 60_003]);
    expect(single.width).toBe(640);
    expect(viewer.switches).toBe(0);
  });

  it('keeps forwarding across sequence number wrap-around, far from its first packet', () => {
    const single = layer(null);
    const layers = new VideoLayers([single]);
    const viewer = new LayerSwitch({ target: () => layers.best, askKeyFrame: () => undefined });
    let forwarded = 0;
    for (let index = 0; index < 70_000; index += 1) {
      const rtp = packet(1111, (100 + index) & 0xffff, index * 3000, index === 0);
      if (viewer.accept(rtp, single, single.receive(rtp, index), index)) forwarded += 1;
    }
    expect(forwarded).toBe(70_000);
  });
  it('forwards a restarted encoder (new SSRC, lower numbers) as it did before layers', () => {
    const single = layer(null);
    const layers = new VideoLayers([single]);
    const viewer = new LayerSwitch({ target: () => layers.best, askKeyFrame: () => undefined });
    const forwarded: number[] = [];
    for (const rtp of [
      packet(1111, 5_000, 0, true),
      packet(1111, 5_001, 3_000),
      packet(2222, 10, 0),
    ]) {
      if (viewer.accept(rtp, single, single.receive(rtp, 0), 0))
        forwarded.push(rtp.header.sequenceNumber);
    }
    expect(forwarded).toEqual([5_000, 5_001, 10]);
  });
});

describe('a simulcast publisher', () => {
  it('gives the viewer the highest layer arriving, at its key frame, asking it for one', () => {
    const { q, f, arrive, asked, viewer } = simulcast();
    // Only the lowest arrives at first: the viewer starts on it.
    expect(arrive(q, packet(1, 100, 1_000, true), 0)).toMatchObject({ sequenceNumber: 100 });
    expect(viewer.current).toBe(q);
    // The highest starts with an inter frame: the viewer stays on the lowest and asks it for a key frame.
    expect(arrive(f, packet(3, 5_000, 77_000), 10)).toBeUndefined();
    expect(asked).toEqual(['f']);
    expect(arrive(q, packet(1, 101, 4_000), 40)).toMatchObject({ sequenceNumber: 101 });
    // Its key frame: the viewer moves, numbering continued.
    const moved = arrive(f, packet(3, 5_001, 80_000, true), 66);
    expect(moved?.sequenceNumber).toBe(102);
    expect(moved?.timestamp).toBe(4_000 + Math.round(26 * 90));
    expect(arrive(f, packet(3, 5_002, 83_000), 100)).toMatchObject({
      sequenceNumber: 103,
      timestamp: 4_000 + 26 * 90 + 3_000,
    });
    // The lowest is no longer forwarded.
    expect(arrive(q, packet(1, 102, 7_000), 101)).toBeUndefined();
    expect(viewer.current).toBe(f);
    expect(viewer.switches).toBe(1);
  });

  it('ranks layers by their size once known, not by their order in the offer', () => {
    const { q, h, layers, arrive } = simulcast();
    // The lowest sends more bits at first (a key frame), but the middle is larger.
    for (let index = 0; index < 20; index += 1) arrive(q, packet(1, index, 0, index === 0), 0);
    arrive(h, packet(2, 1, 0, true), 1);
    expect(layers.best).toBe(h);
    expect(h.figures(1)).toMatchObject({ rid: 'h', ssrc: 2, width: 320, height: 180 });
    expect(q.figures(1)).toMatchObject({ width: 160, height: 90 });
  });

  it('falls back to a lower layer when the highest stops, and goes back up when it returns', () => {
    const { q, f, arrive, viewer, asked } = simulcast();
    arrive(q, packet(1, 10, 0, true), 0);
    arrive(f, packet(3, 20, 0, true), 1);
    expect(viewer.current).toBe(f);
    let now = 1;
    let sequence = 11;
    // The highest stops; the lowest keeps coming.
    while (now < LAYER_SILENT_MS + 100) {
      now += 66;
      arrive(q, packet(1, sequence, sequence * 6_000), now);
      sequence += 1;
    }
    expect(asked).toContain('q');
    expect(viewer.current).toBe(f); // no key frame of the lowest yet
    const down = arrive(q, packet(1, sequence, sequence * 6_000, true), now + 10);
    expect(viewer.current).toBe(q);
    expect(down?.sequenceNumber).toBe(12);
    // The highest again: back up at its next key frame.
    expect(arrive(f, packet(3, 500, 900_000, true), now + 20)?.sequenceNumber).toBe(13);
    expect(viewer.current).toBe(f);
    expect(viewer.switches).toBe(3); // up, down, up again
  });

  it('tells a layer silent past LAYER_SILENT_MS from one heard within a longer span (a start on the lowest)', () => {
    const q = layer('q');
    expect(q.arriving(0)).toBe(false);
    q.receive(packet(1, 1, 0, true), 1_000);
    expect(q.arriving(1_000 + LAYER_SILENT_MS)).toBe(true);
    expect(q.arriving(1_000 + LAYER_SILENT_MS + 1)).toBe(false);
    expect(q.arriving(2_500, 2_000)).toBe(true);
    expect(q.arriving(3_001, 2_000)).toBe(false);
  });

  it("does not forward a new layer's packets from before its key frame", () => {
    const { q, f, arrive } = simulcast();
    arrive(q, packet(1, 10, 0, true), 0);
    arrive(f, packet(3, 20, 0, true), 1);
    // A late packet of the highest layer, older than its key frame.
    expect(arrive(f, packet(3, 19, 0), 2)).toBeUndefined();
    expect(arrive(f, packet(3, 21, 3_000), 3)?.sequenceNumber).toBe(12);
  });

  it('measures each layer: bitrate and frame rate over the last 2 s', () => {
    const { q, arrive } = simulcast();
    // 15 frames a second for 2 s, 2 packets a frame of 16 payload bytes (inter frames).
    for (let frame = 0; frame < 30; frame += 1) {
      for (let part = 0; part < 2; part += 1) {
        arrive(q, packet(1, frame * 2 + part, frame * 6_000), frame * 66.7);
      }
    }
    const figures = q.figures(1_999);
    expect(figures.frameRate).toBe(15);
    expect(figures.bitrate).toBe(Math.round((30 * 2 * 16 * 8) / 2));
    // Silent for 2 s: nothing.
    expect(q.figures(4_100)).toMatchObject({ frameRate: 0, bitrate: 0 });
  });

  it("carries the layer's capture clock into the viewer's timestamps across a switch", () => {
    const { q, f, arrive, viewer } = simulcast();
    const epochMs = Date.now();
    // Both layers stamped from one capture clock, each from its own start.
    const ntp = (ms: number) => BigInt(Math.round((ms + 2_208_988_800_000) * 4_294_967.296));
    q.clock.onSenderReport({ ntpTimestamp: ntp(epochMs), rtpTimestamp: 1_000_000 }, epochMs);
    f.clock.onSenderReport({ ntpTimestamp: ntp(epochMs), rtpTimestamp: 5_000_000 }, epochMs);
    arrive(q, packet(1, 10, 1_000_000, true), 0);
    expect(viewer.rtpTimestampAt(epochMs)).toBe(1_000_000);
    // The highest layer's key frame, captured 100 ms after the SRs' instant.
    const moved = arrive(f, packet(3, 7, 5_009_000, true), 50);
    // The same instant on the viewer's clock (within the test's own run time).
    expect(Math.abs((moved?.timestamp ?? 0) - 1_009_000)).toBeLessThan(900);
    expect(Math.abs((viewer.rtpTimestampAt(epochMs) ?? 0) - 1_000_000)).toBeLessThan(900);
  });
});

/** A VP8 packet of a layer's SSRC as libwebrtc sends one, numbered `picture`. */
function numberedPacket(
  ssrc: number,
  sequence: number,
  picture: { id: number; tl0: number },
  keyFrame = false,
) {
  const [width, height] = SIZES[ssrc] ?? [640, 360];
  return libwebrtcVp8Packet({ ssrc, sequence, picture, keyFrame, size: { width, height } });
}

describe("VP8's picture numbers across a move (decision 0107)", () => {
  it("continues them: the new layer's key frame is the picture after the last one, its TL0PICIDX the next", () => {
    const { q, f, take } = simulcast();
    // The lowest layer first, numbered from 30,000; the highest numbers its own from 100.
    expect(take(q, numberedPacket(1, 10, { id: 30_000, tl0: 7 }, true), 0)).toBeDefined();
    const lastOfQ = take(q, numberedPacket(1, 11, { id: 30_001, tl0: 7 }), 33);
    expect(lastOfQ && vp8Numbering(lastOfQ.payload)).toMatchObject({ pictureId: 30_001 });
    const keyOfF = numberedPacket(3, 500, { id: 100, tl0: 200 }, true);
    const publishersBytes = Buffer.from(keyOfF.payload);
    const moved = take(f, keyOfF, 50);
    expect(moved && vp8Numbering(moved.payload)).toEqual({
      pictureId: 30_002,
      pictureIdBits: 15,
      tl0PicIdx: 8,
    });
    // Only the viewer's copy is renumbered: the publisher's packet (every viewer's) is as it came.
    expect(keyOfF.payload.equals(publishersBytes)).toBe(true);
    // The frame itself is untouched: still a 640x360 key frame.
    expect(moved?.payload.subarray(6)).toEqual(publishersBytes.subarray(6));
    const next = take(f, numberedPacket(3, 501, { id: 101, tl0: 200 }), 83);
    expect(next && vp8Numbering(next.payload)).toMatchObject({ pictureId: 30_003, tl0PicIdx: 8 });
  });

  it('wraps the 15-bit picture ID and the 8-bit TL0PICIDX, and numbers a move back down on', () => {
    const { q, f, take } = simulcast();
    take(q, numberedPacket(1, 10, { id: 0x7ffe, tl0: 254 }, true), 0);
    take(q, numberedPacket(1, 11, { id: 0x7fff, tl0: 255 }), 33);
    const up = take(f, numberedPacket(3, 40, { id: 5, tl0: 9 }, true), 50);
    expect(up && vp8Numbering(up.payload)).toMatchObject({ pictureId: 0, tl0PicIdx: 0 });
    take(f, numberedPacket(3, 41, { id: 6, tl0: 10 }), 83);
    // The highest stops: back down to the lowest at its key frame, after the picture before.
    let now = 83;
    let sequence = 12;
    while (now < LAYER_SILENT_MS + 200) {
      now += 66;
      take(q, numberedPacket(1, sequence, { id: sequence, tl0: 3 }), now);
      sequence += 1;
    }
    const down = take(q, numberedPacket(1, sequence, { id: 4_000, tl0: 77 }, true), now + 10);
    expect(down && vp8Numbering(down.payload)).toMatchObject({ pictureId: 2, tl0PicIdx: 2 });
  });

  it("leaves the first layer's numbers, and a publisher without them, as they came (no copy)", () => {
    const { q, take } = simulcast();
    const first = numberedPacket(1, 10, { id: 1_234, tl0: 5 }, true);
    expect(take(q, first, 0)?.payload).toBe(first.payload);
    const { f: plainF, q: plainQ, take: takePlain } = simulcast();
    takePlain(plainQ, packet(1, 10, 0, true), 0);
    const plain = packet(3, 20, 3_000, true);
    expect(takePlain(plainF, plain, 10)?.payload).toBe(plain.payload);
  });
});
