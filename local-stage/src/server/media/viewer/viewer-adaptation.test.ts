import { RtcpPacketConverter, RtcpReceiverInfo, RtcpRrPacket } from 'werift';
import { describe, expect, it } from 'vitest';
import { RtpHeader, RtpPacket } from 'werift';
import { testVideoLayer } from '../../../testing/video-layer';
import { VideoLayer, VideoLayers } from '../publisher/video-layers';
import { PROBE_AFTERMATH_MS, PROBE_WINDOW_MS } from './layer-choice';
import { encodeRemb } from '../publisher/remb';
import { ViewerAdaptation } from './viewer-adaptation';

function adaptation(
  options: {
    paused?: () => boolean;
    report?: (videoPaused: boolean, estimate: number | undefined) => void;
    current?: () => VideoLayer | undefined;
    layers?: VideoLayers;
    sendsRemb?: () => boolean;
    pad?: (bytes: number) => number;
  } = {},
) {
  const layers = options.layers ?? new VideoLayers([]);
  return new ViewerAdaptation({
    layers: () => layers,
    current: options.current ?? (() => undefined),
    pad: options.pad ?? (() => 0),
    paused: options.paused ?? (() => false),
    report: options.report ?? (() => undefined),
    videoSsrc: () => 1234,
    ...(options.sendsRemb ? { sendsRemb: options.sendsRemb } : {}),
  });
}

const remb = (bitrate: number) => {
  const [packet] = RtcpPacketConverter.deSerialize(encodeRemb(99, bitrate, [1234]));
  if (!packet) throw new Error('no REMB');
  return packet;
};

describe('a viewer’s bandwidth estimate', () => {
  it('is the REMB its browser sends about the video it gets, as werift parses it', () => {
    const viewer = adaptation();
    const [remb] = RtcpPacketConverter.deSerialize(encodeRemb(99, 412_345, [1234, 5678]));
    expect(remb).toBeDefined();
    if (remb) viewer.onRtcp(remb, 1_000);
    // REMB keeps 18 bits of mantissa: exact below 262,144 << exponent.
    expect(viewer.estimate()).toBeGreaterThan(412_000);
    expect(viewer.estimate()).toBeLessThanOrEqual(412_345);
  });

  it('ignores a REMB about other streams, and keeps the last one', () => {
    const viewer = adaptation();
    const [other] = RtcpPacketConverter.deSerialize(encodeRemb(99, 300_000, [42]));
    if (other) viewer.onRtcp(other, 0);
    expect(viewer.estimate()).toBeUndefined();
    const [remb] = RtcpPacketConverter.deSerialize(encodeRemb(99, 300_000, [1234]));
    if (remb) viewer.onRtcp(remb, 0);
    // However old: a viewer whose REMB stopped coming has a link that carries no more.
    expect(viewer.estimate()).toBe(300_000);
  });
});

/** Receiver reports with running totals: each says `expected` more packets, `lost` of them. */
function receiverReports() {
  let highest = 1_000;
  let lost = 0;
  return (expected: number, lostNow: number, ssrc = 1234) => {
    highest += expected;
    lost += lostNow;
    const info = new RtcpReceiverInfo({ ssrc, highestSequence: highest, packetsLost: lost });
    return new RtcpRrPacket({ ssrc: 7, reports: [info] });
  };
}

/**
 * Layers of 100 kbit/s and 900 kbit/s, fed on a fake clock, and the viewer's adaptation; the
 * bytes its probes pad with are counted (`padded()`).
 */
function viewer() {
  const make = testVideoLayer;
  const q = make('q');
  const f = make('f');
  const layers = new VideoLayers([q, f]);
  let current: VideoLayer | undefined = f;
  let padded = 0;
  const adapted = adaptation({
    layers,
    current: () => current,
    pad: (bytes) => {
      padded += bytes;
      return bytes;
    },
  });
  let now = 0;
  let sequence = 0;
  /**
   * `ms` of both layers arriving in 100 ms steps, the viewer sent `sentKbps` (or the chosen
   * layer's rate), a REMB of `remb(now)` each 200 ms, then `each(now)`.
   */
  const run = (
    ms: number,
    sentKbps: number | 'chosen',
    remb?: (now: number) => number,
    each?: (now: number) => void,
  ) => {
    for (const end = now + ms; now < end; now += 100) {
      for (const [layer, kbps] of [
        [q, 100],
        [f, 900],
      ] as const) {
        const header = new RtpHeader({ ssrc: 1, sequenceNumber: sequence++ & 0xffff });
        layer.receive(new RtpPacket(header, Buffer.alloc((kbps * 1000) / 80)), now);
      }
      layers.update(now);
      const sent = sentKbps === 'chosen' ? (current === f ? 900 : 100) : sentKbps;
      adapted.forwarded((sent * 1000) / 80, now);
      if (remb && now % 200 === 0) {
        const [packet] = RtcpPacketConverter.deSerialize(encodeRemb(99, remb(now), [1234]));
        if (packet) adapted.onRtcp(packet, now);
      }
      const target = adapted.target(now);
      current = target ?? undefined;
      each?.(now);
    }
    return current;
  };
  return { q, f, run, adapted, padded: () => padded };
}

describe('a viewer adapted from its REMB', () => {
  it('keeps the top layer while its estimate climbs from what it was sent, and leaves it when the estimate stops short', () => {
    const { q, f, run } = viewer();
    expect(run(1_000, 0)).toBe(f);
    // Sent little at first (the top layer's key frame late): a first estimate of 300 kbit/s.
    expect(run(1_000, 250, () => 300_000)).toBe(f);
    // Sent the top layer: the estimate climbs toward it, about 8 % a second.
    const start = 2_000;
    expect(run(5_000, 900, (at) => 300_000 * 1.08 ** ((at - start) / 1000))).toBe(f);
    // It stops at 400 kbit/s and stays: the viewer's link does not carry the top layer.
    expect(run(1_000, 900, () => 400_000)).toBe(q);
  });
});

describe('a viewer probed up toward a layer its estimate nears', () => {
  it('counts no loss as the line’s own while the probe’s padding is on its link (decision 0108)', () => {
    const { q, run, adapted, padded } = viewer();
    const report = receiverReports();
    const remb600 = () => 600_000;
    adapted.onRtcp(report(0, 0), 0);
    // An estimate short of f: down to q, clean reports, the line's loss nothing.
    const chosen = run(2_500, 'chosen', remb600, (at) => {
      adapted.tick(at);
      if (at % 500 === 0) adapted.onRtcp(report(100, 0), at);
    });
    expect(chosen).toBe(q);
    expect(adapted.lineLoss()).toBe(0);
    expect(padded()).toBe(0);
    // After f's retry wait, a quiet estimate within a probe's reach of it: the probe pads the
    // link toward f. Its reports lose a fifth with the REMB far over what q sends: loss that, but
    // for the probe, would be the line's own. The probe and its aftermath count none of it.
    let padStart: number | undefined;
    const counted: number[] = [];
    run(20_000, 'chosen', remb600, (at) => {
      adapted.tick(at);
      if (padded() > 0) padStart ??= at;
      if (padStart === undefined || at % 500 !== 0) return;
      adapted.onRtcp(report(100, 20), at);
      if (at - padStart < PROBE_AFTERMATH_MS) counted.push(adapted.lineLoss() ?? 0);
    });
    expect(padStart).toBeDefined();
    expect(counted.length).toBeGreaterThan(5);
    expect(Math.max(...counted)).toBe(0);
    // Once the probe's aftermath is over, the padding that lets the estimate grow is no probe up:
    // its loss is judged as the line's.
    expect(adapted.lineLoss()).toBeGreaterThan(0.1);
  });
});

describe('a paused viewer', () => {
  /** Paused on layers of ~100 kbit/s and ~900 kbit/s; `rembAt(now)` its REMB each second. */
  function pausedViewer(rembAt: (now: number) => number | undefined) {
    const q = testVideoLayer('q');
    const layers = new VideoLayers([q, testVideoLayer('f')]);
    const padded: number[] = [];
    const viewer = new ViewerAdaptation({
      layers: () => layers,
      current: () => undefined,
      pad: (bytes) => {
        padded.push(bytes);
        return bytes;
      },
      paused: () => true,
      report: () => undefined,
      videoSsrc: () => 1234,
    });
    let sequence = 0;
    const chosen: (VideoLayer | null | undefined)[] = [];
    const run = (from: number, to: number) => {
      for (let now = from; now < to; now += 50) {
        if (now % 100 === 0) {
          for (const [layer, bytes] of [
            [q, 1_300],
            [layers.all[1], 11_000],
          ] as const) {
            const header = new RtpHeader({ ssrc: 1, sequenceNumber: sequence++ & 0xffff });
            layer?.receive(new RtpPacket(header, Buffer.alloc(bytes)), now);
          }
          layers.update(now);
        }
        // Its audio, 32 kbit/s, never paused.
        viewer.audioForwarded(200, now);
        const estimate = now % 1_000 === 200 ? rembAt(now) : undefined;
        if (estimate !== undefined) viewer.onRtcp(remb(estimate), now);
        viewer.tick(now);
        chosen.push(viewer.target(now));
      }
    };
    return { q, run, chosen, padded };
  }

  it('stays paused while its estimate holds still under the lowest layer: a link still full, not flooded by probes', () => {
    // The link cut: the estimate falls to 30 kbit/s and stays there, a REMB each second.
    const { run, chosen, padded } = pausedViewer((now) => (now < 1_000 ? 600_000 : 30_000));
    run(0, 20_000);
    const paused = chosen.indexOf(null);
    expect(paused).toBeGreaterThan(0);
    expect(chosen.slice(paused).every((each) => each === null)).toBe(true);
    // 85 % of 30 kbit/s is less than its audio's 32: no probe on top of it.
    expect(padded.slice(-100)).toEqual([]);
  });

  it('resumes the lowest layer once its estimate rises during a probe (the link restored)', () => {
    const restoredAt = 10_000;
    const { q, run, chosen } = pausedViewer((now) =>
      now < 1_000
        ? 600_000
        : now < restoredAt
          ? 30_000
          : 30_000 * 1.08 ** ((now - restoredAt) / 1000),
    );
    run(0, restoredAt);
    expect(chosen.at(-1)).toBeNull();
    run(restoredAt, restoredAt + 10_000);
    const resumed = chosen.indexOf(q, restoredAt / 50);
    expect(resumed).toBeGreaterThan(0);
    // Within the probe's quiet and window of the restore.
    expect(resumed * 50 - restoredAt).toBeLessThanOrEqual(2 * PROBE_WINDOW_MS + 1_000);
  });
});

describe('a viewer whose receiver reports show loss', () => {
  /** A layer of 1 Mbit/s, fed in 100 ms steps from `from` to `to`. */
  function feed(layer: VideoLayer, from: number, to: number) {
    for (let at = from; at <= to; at += 100) {
      const header = new RtpHeader({ ssrc: 1, sequenceNumber: at / 100, timestamp: at * 90 });
      layer.receive(new RtpPacket(header, Buffer.alloc(12_500)), at);
    }
  }

  /** A viewer of a 1 Mbit/s layer, 2 s in, its reports' totals taken at 100 ms. */
  function lossyViewer(sendsRemb?: () => boolean) {
    const f = testVideoLayer('f');
    const viewer = adaptation({ current: () => f, ...(sendsRemb ? { sendsRemb } : {}) });
    const report = receiverReports();
    viewer.tick(0);
    viewer.onRtcp(report(0, 0), 100);
    feed(f, 0, 2_000);
    return { f, viewer, report };
  }

  it('is bounded to what got through, before any REMB and until one speaks', () => {
    const { viewer, report } = lossyViewer();
    // 1 Mbit/s sent; a quarter lost: 750 kbit/s got through.
    viewer.onRtcp(report(100, 25), 2_000);
    expect(viewer.lossBound(2_000)).toBeCloseTo(750_000, -4);
    expect(viewer.estimate()).toBeUndefined();
    // Reports under a tenth lost do not move it; without a REMB the bound stays (no estimate
    // would put the viewer back on the top layer).
    viewer.onRtcp(report(100, 5), 3_000);
    expect(viewer.lossBound(3_000)).toBeCloseTo(750_000, -4);
    // A REMB speaks for the link: the bound goes with the next clean report.
    viewer.onRtcp(remb(2_000_000), 3_100);
    expect(viewer.lossBound(3_100)).toBeCloseTo(750_000, -4);
    viewer.onRtcp(report(100, 0), 4_000);
    expect(viewer.lossBound(4_000)).toBeUndefined();
    expect(viewer.estimate()).toBe(2_000_000);
  });

  it('says its link carries a layer while no loss shows and its estimate, once known, reaches it', () => {
    const { f, viewer, report } = lossyViewer();
    expect(viewer.carries(f, 2_000)).toBe(true); // nothing known against it yet
    viewer.onRtcp(report(100, 25), 2_000);
    expect(viewer.carries(f, 2_000)).toBe(false); // a quarter of 1 Mbit/s lost
    viewer.onRtcp(report(100, 0), 2_100);
    viewer.onRtcp(remb(400_000), 2_100);
    expect(viewer.carries(f, 2_100)).toBe(false); // 1 Mbit/s on 400 kbit/s
    viewer.onRtcp(remb(2_000_000), 2_200);
    expect(viewer.carries(f, 2_200)).toBe(true);
  });

  it('counts all the link was offered: the retransmissions and audio sent beside the layer', () => {
    const { f, viewer, report } = lossyViewer();
    // Over the second before the report: 500 kbit/s sent again for NACKs, 50 kbit/s of audio.
    for (let at = 1_100; at < 2_100; at += 20) {
      viewer.retransmitted(1_250, at);
      viewer.audioForwarded(125, at);
    }
    viewer.onRtcp(report(100, 70), 2_099);
    expect(viewer.lossBound(2_099)).toBeCloseTo((f.bitrate(2_099) + 550_000) * 0.3, -3);
  });

  it('is judged over 100 packets or more: three lost in twenty, as a 2 % random loss bunches now and then, is no loss of 15 %', () => {
    const { viewer, report } = lossyViewer();
    viewer.onRtcp(report(20, 3), 300);
    expect(viewer.lossBound(300)).toBeUndefined();
    for (let at = 500; at <= 1_100; at += 200) viewer.onRtcp(report(20, 0), at);
    expect(viewer.loss?.fraction).toBeCloseTo(3 / 100);
    expect(viewer.lossBound(1_100)).toBeUndefined();
  });

  it('is not taken from a viewer that negotiated no REMB (the recorder keeps the top layer)', () => {
    const { viewer, report } = lossyViewer(() => false);
    viewer.onRtcp(report(100, 50), 2_000);
    expect(viewer.lossBound(2_000)).toBeUndefined();
  });

  it('takes loss for the line’s own while the REMB has twice what is sent', () => {
    const { f, viewer, report } = lossyViewer();
    viewer.onRtcp(remb(2_500_000), 1_500);
    viewer.onRtcp(report(100, 16), 2_000);
    expect(viewer.lossBound(2_000)).toBeUndefined();
    viewer.onRtcp(remb(1_500_000), 2_050);
    viewer.onRtcp(report(100, 16), 2_100);
    expect(viewer.lossBound(2_100)).toBeCloseTo(f.bitrate(2_100) * 0.84, -3);
  });

  it('counts the line’s own loss only while the REMB, not falling, has room over what is sent, over about its last 300 packets', () => {
    const { viewer, report } = lossyViewer();
    // Before any REMB, loss may be congestion: not the line's.
    viewer.onRtcp(report(100, 2), 1_900);
    expect(viewer.lineLoss()).toBeUndefined();
    // 1 Mbit/s sent; a REMB of 1.4 Mbit/s (libwebrtc's is at most 1.5 times what arrives).
    viewer.onRtcp(remb(1_400_000), 1_950);
    viewer.onRtcp(report(100, 2), 2_000);
    expect(viewer.lineLoss()).toBeCloseTo(0.02);
    // A REMB under what is sent, or falling: congestion's loss, the estimate's business.
    viewer.onRtcp(remb(1_000_000), 2_050);
    viewer.onRtcp(report(100, 30), 2_100);
    viewer.onRtcp(remb(1_400_000), 2_110);
    viewer.onRtcp(remb(1_300_000), 2_120);
    viewer.onRtcp(report(100, 30), 2_130);
    expect(viewer.lineLoss()).toBeCloseTo(0.02);
    // A clean line again: the old loss fades.
    viewer.onRtcp(remb(1_400_000), 2_150);
    for (let at = 2_200; at <= 2_600; at += 100) viewer.onRtcp(report(100, 0), at);
    expect(viewer.lineLoss()).toBeLessThan(0.005);
  });

  it('counts no loss of the start’s first 2 s as the line’s own: that is the start’s burst', () => {
    const { viewer, report } = lossyViewer();
    viewer.start(1_000);
    viewer.onRtcp(remb(1_400_000), 1_950);
    viewer.onRtcp(report(100, 7), 2_000);
    viewer.onRtcp(report(100, 5), 2_900);
    expect(viewer.lineLoss()).toBeUndefined();
    // The same loss once the start is over is the line's.
    viewer.onRtcp(report(100, 2), 3_000);
    expect(viewer.lineLoss()).toBeCloseTo(0.02);
    viewer.stop();
  });

  it('takes no report counted from before a layer change: it tells of the layer before', () => {
    let current: VideoLayer = testVideoLayer('f');
    const viewer = adaptation({ current: () => current });
    const report = receiverReports();
    viewer.tick(0);
    viewer.onRtcp(report(0, 0), 500);
    current = testVideoLayer('q');
    feed(current, 0, 2_000);
    viewer.tick(1_000);
    // Counted from 500 ms, before the change at 1 s: the top layer's loss.
    viewer.onRtcp(report(100, 50), 1_200);
    expect(viewer.lossBound(1_200)).toBeUndefined();
    // Counted from 1.2 s, after it: the new layer's own.
    viewer.onRtcp(report(100, 50), 1_400);
    expect(viewer.lossBound(1_400)).toBeDefined();
  });

  it('takes no report counted within a second of a move down: the layer left still crowds the link', () => {
    const f = testVideoLayer('f');
    const q = testVideoLayer('q');
    feed(f, 0, 1_000);
    // q at a tenth of f's 1 Mbit/s.
    for (let at = 0; at <= 1_000; at += 100) {
      const header = new RtpHeader({ ssrc: 2, sequenceNumber: at / 100, timestamp: at * 90 });
      q.receive(new RtpPacket(header, Buffer.alloc(1_250)), at);
    }
    let current: VideoLayer = f;
    const viewer = adaptation({ current: () => current });
    const report = receiverReports();
    viewer.tick(0);
    viewer.onRtcp(report(0, 0), 500);
    current = q;
    viewer.tick(1_000);
    for (const at of [1_200, 1_700, 2_100]) {
      viewer.onRtcp(report(100, 50), at);
      expect(viewer.lossBound(at)).toBeUndefined();
    }
    // Counted from 2.1 s, over a second after the move: q's own loss.
    viewer.onRtcp(report(100, 50), 2_300);
    expect(viewer.lossBound(2_300)).toBeDefined();
  });
});

describe('what a viewer is told of its adaptation', () => {
  it('is its pause at once, both ways, and its estimate when it moved, at most once a second', () => {
    let paused = false;
    const told: [boolean, number | undefined][] = [];
    const viewer = adaptation({
      paused: () => paused,
      report: (videoPaused, estimate) => told.push([videoPaused, estimate]),
    });
    viewer.tick(0);
    expect(told).toEqual([]);
    viewer.onRtcp(remb(1_200_000), 10);
    viewer.tick(50);
    expect(told).toEqual([[false, 1_200_000]]);
    // Within the second, or moved by under a tenth: not told.
    viewer.onRtcp(remb(600_000), 300);
    viewer.tick(400);
    viewer.onRtcp(remb(1_150_000), 500);
    viewer.tick(1_200);
    expect(told).toHaveLength(1);
    // The pause is told at once, and so is the resume.
    viewer.onRtcp(remb(600_000), 1_300);
    paused = true;
    viewer.tick(1_350);
    paused = false;
    viewer.tick(1_400);
    expect(told.slice(1)).toEqual([
      [true, 600_000],
      [false, 600_000],
    ]);
    viewer.onRtcp(remb(900_000), 2_000);
    viewer.tick(2_450);
    expect(told.at(-1)).toEqual([false, 900_000]);
  });
});
