/**
 * Kept as one file: the layer choice's hysteresis as one table of timed cases (down, up, probes,
 * retries, loss), each read against the constants of layer-choice.ts.
 */
import { RtpHeader, RtpPacket } from 'werift';
import { describe, expect, it } from 'vitest';
import { testVideoLayer } from '../../../testing/video-layer';
import { VideoLayer, VideoLayers } from '../publisher/video-layers';
import {
  DOWN_AFTER_MS,
  FIRST_RETRY_MS,
  FIT_SHARE,
  LayerChoice,
  PROBE_AFTERMATH_MS,
  PROBE_MARGIN,
  PROBE_QUIET_MS,
  PROBE_REACH,
  PROBE_WINDOW_MS,
  UP_AFTER_MS,
  chooseLayer,
} from './layer-choice';
import { LayerSwitch } from './layer-switch';

/** Kilobits a second of each layer: a camera on IVS's ratios (decision 0067). */
const RATES = { q: 106, h: 370, f: 900 } as const;
type Rid = keyof typeof RATES;

const layer = (rid: Rid): VideoLayer => testVideoLayer(rid);

/**
 * Three layers, each fed its rate in 100 ms steps on a fake clock (performance.now's units), in
 * `packetsPerStep` packets a step each (one by default).
 */
function publisher(packetsPerStep: Record<Rid, number> = { q: 1, h: 1, f: 1 }) {
  const all = { q: layer('q'), h: layer('h'), f: layer('f') };
  const layers = new VideoLayers([all.q, all.h, all.f]);
  let now = 0;
  let sequence = 0;
  const run = (ms: number, each?: (now: number) => void) => {
    for (const end = now + ms; now < end; now += 100) {
      for (const rid of ['q', 'h', 'f'] as const) {
        const bytes = (RATES[rid] * 1000) / 8 / 10 / packetsPerStep[rid];
        for (let packet = 0; packet < packetsPerStep[rid]; packet += 1) {
          const header = new RtpHeader({
            ssrc: 1,
            sequenceNumber: sequence++ & 0xffff,
            timestamp: now * 90,
          });
          all[rid].receive(new RtpPacket(header, Buffer.alloc(bytes, 0x10)), now);
        }
      }
      layers.update(now);
      each?.(now);
    }
  };
  run(2_000);
  return { ...all, layers, run, now: () => now };
}

describe('choosing a viewer’s layer', () => {
  it('gives the highest layer without an estimate, and the highest that fits with one', () => {
    const { layers, f, h, q, now } = publisher();
    expect(chooseLayer(layers, now(), {})).toBe(f);
    expect(chooseLayer(layers, now(), { maxBitrate: 5_000_000 })).toBe(f);
    expect(chooseLayer(layers, now(), { maxBitrate: 500_000 })).toBe(h);
    expect(chooseLayer(layers, now(), { maxBitrate: 350_000 })).toBe(q);
    expect(chooseLayer(layers, now(), { maxBitrate: 50_000 })).toBeNull();
  });

  it('gives the viewer’s own choice while it arrives, whatever the estimate', () => {
    const { layers, q, f, now } = publisher();
    expect(chooseLayer(layers, now(), { maxBitrate: 5_000_000, preferredRid: 'q' })).toBe(q);
    expect(chooseLayer(layers, now(), { maxBitrate: 50_000, preferredRid: 'f' })).toBe(f);
    expect(chooseLayer(layers, now(), { preferredRid: 'x' })).toBe(f);
  });

  it('moves down only once the layer has not fitted for a while', () => {
    const { layers, f, q, run, now } = publisher();
    const choice = new LayerChoice();
    expect(choice.choose(layers, now(), {})).toBe(f);
    const chosen: (VideoLayer | null | undefined)[] = [];
    run(DOWN_AFTER_MS - 100, (at) =>
      chosen.push(choice.choose(layers, at, { maxBitrate: 400_000 })),
    );
    expect(chosen.every((each) => each === f)).toBe(true);
    run(300, (at) => chosen.push(choice.choose(layers, at, { maxBitrate: 400_000 })));
    expect(chosen.at(-1)).toBe(q);
  });

  it('moves up once the estimate has had room for a higher layer for seconds, not at once', () => {
    const { layers, q, h, f, run, now } = publisher();
    const choice = new LayerChoice();
    choice.choose(layers, now(), {});
    run(DOWN_AFTER_MS + 200, (at) => choice.choose(layers, at, { maxBitrate: 150_000 }));
    expect(choice.choose(layers, now(), { maxBitrate: 150_000 })).toBe(q);
    // Room for the middle layer, briefly: no move.
    run(1_000, (at) => choice.choose(layers, at, { maxBitrate: 600_000 }));
    run(200, (at) => choice.choose(layers, at, { maxBitrate: 150_000 }));
    expect(choice.choose(layers, now(), { maxBitrate: 150_000 })).toBe(q);
    // Room for seconds: up one layer; then room for the top: up to it after seconds more.
    expect(choice.probeTarget(layers, now(), { maxBitrate: 600_000 })).toBe(
      h.bitrate(now()) * PROBE_MARGIN,
    );
    run(UP_AFTER_MS + 200, (at) => choice.choose(layers, at, { maxBitrate: 600_000 }));
    expect(choice.choose(layers, now(), { maxBitrate: 600_000 })).toBe(h);
    // The top layer, left for not fitting, waits its retry time first.
    run(FIRST_RETRY_MS, (at) => choice.choose(layers, at, { maxBitrate: 5_000_000 }));
    expect(choice.choose(layers, now(), { maxBitrate: 5_000_000 })).toBe(f);
    expect(choice.probeTarget(layers, now(), { maxBitrate: 5_000_000 })).toBeUndefined();
  });

  it('pauses below the lowest layer and resumes on it once it fits again', () => {
    const { layers, q, run, now } = publisher();
    const choice = new LayerChoice();
    choice.choose(layers, now(), {});
    // On the lowest layer, an estimate that dips to about its bitrate (what arrives) keeps it.
    const dip = { maxBitrate: 100_000, estimateFalling: true };
    run(2 * DOWN_AFTER_MS + 400, (at) => choice.choose(layers, at, dip));
    expect(choice.choose(layers, now(), dip)).toBe(q);
    const fallen = { maxBitrate: 60_000, estimateFalling: true };
    run(2 * DOWN_AFTER_MS + 400, (at) => choice.choose(layers, at, fallen));
    expect(choice.choose(layers, now(), fallen)).toBeNull();
    // The lowest layer, left for the pause, waits its retry time before it is tried again.
    run(FIRST_RETRY_MS - 500, (at) => choice.choose(layers, at, { maxBitrate: 200_000 }));
    expect(choice.choose(layers, now(), { maxBitrate: 200_000 })).toBeNull();
    run(UP_AFTER_MS + 700, (at) => choice.choose(layers, at, { maxBitrate: 200_000 }));
    expect(choice.choose(layers, now(), { maxBitrate: 200_000 })).toBe(q);
  });
});

describe('a paused viewer', () => {
  it('stops at a frame’s start, keeps its picture whole, and resumes at a key frame numbered on', () => {
    const single = layer('q');
    let target: VideoLayer | null = single;
    const viewer = new LayerSwitch({ target: () => target, askKeyFrame: () => undefined });
    const vp8Key = Buffer.from([0x10, 0, 0, 0, 0x9d, 0x01, 0x2a, 160, 0, 90, 0]);
    const vp8Inter = Buffer.from([0x10, 0x01, 0, 0]);
    const send = (sequenceNumber: number, timestamp: number, key = false) => {
      const rtp = new RtpPacket(
        new RtpHeader({ ssrc: 1, sequenceNumber, timestamp }),
        key ? vp8Key : vp8Inter,
      );
      return viewer.accept(rtp, single, single.receive(rtp, timestamp / 90), timestamp / 90)
        ? rtp.header.sequenceNumber
        : undefined;
    };
    expect(send(10, 0, true)).toBe(10);
    expect(send(11, 3_000)).toBe(11);
    target = null;
    // The frame begun is finished; the next is not sent.
    expect(send(12, 3_000)).toBe(12);
    expect(send(13, 6_000)).toBeUndefined();
    expect(viewer.paused).toBe(true);
    target = single;
    expect(send(14, 9_000)).toBeUndefined();
    expect(send(15, 12_000, true)).toBe(13);
    expect(viewer.paused).toBe(false);
  });
});

describe('a viewer whose link is restored', () => {
  it('goes straight to the highest layer the estimate has room for', () => {
    const { layers, q, f, run, now } = publisher();
    const choice = new LayerChoice();
    choice.choose(layers, now(), {});
    run(DOWN_AFTER_MS + 200, (at) => choice.choose(layers, at, { maxBitrate: 150_000 }));
    expect(choice.choose(layers, now(), { maxBitrate: 150_000 })).toBe(q);
    run(FIRST_RETRY_MS, (at) => choice.choose(layers, at, { maxBitrate: 150_000 }));
    run(UP_AFTER_MS + 200, (at) => choice.choose(layers, at, { maxBitrate: 5_000_000 }));
    expect(choice.choose(layers, now(), { maxBitrate: 5_000_000 })).toBe(f);
  });

  it('waits longer each time before trying again a layer its link was just short of', () => {
    const { layers, q, h, run, now } = publisher();
    const choice = new LayerChoice();
    const chosenAt = (maxBitrate: number, ms: number, estimateFalling = true) => {
      run(ms, (at) => choice.choose(layers, at, { maxBitrate, estimateFalling }));
      return choice.choose(layers, now(), { maxBitrate, estimateFalling });
    };
    choice.choose(layers, now(), {});
    expect(chosenAt(500_000, DOWN_AFTER_MS + 200)).toBe(h);
    expect(chosenAt(300_000, DOWN_AFTER_MS + 200)).toBe(q);
    // The estimate recovers above the middle layer: up after the first retry time.
    expect(chosenAt(500_000, FIRST_RETRY_MS - 1_000, false)).toBe(q);
    expect(chosenAt(500_000, 1_000 + UP_AFTER_MS + 200, false)).toBe(h);
    // It did not fit after all: down, and the next try waits twice as long.
    expect(chosenAt(300_000, DOWN_AFTER_MS + 200)).toBe(q);
    expect(chosenAt(500_000, FIRST_RETRY_MS + 2_500, false)).toBe(q);
    expect(chosenAt(500_000, FIRST_RETRY_MS, false)).toBe(h);
  });

  it('keeps the layer on a first estimate just under its bitrate, and leaves it once the estimate falls', () => {
    const { layers, f, h, run, now } = publisher();
    const choice = new LayerChoice();
    choice.choose(layers, now(), {});
    // libwebrtc's first estimate: what arrived, a little under the layer's bitrate, then climbing.
    const steady = { maxBitrate: 0.85 * f.bitrate(now()), estimateFalling: false };
    run(3_000, (at) => choice.choose(layers, at, steady));
    expect(choice.choose(layers, now(), steady)).toBe(f);
    const falling = { ...steady, estimateFalling: true };
    run(DOWN_AFTER_MS + 200, (at) => choice.choose(layers, at, falling));
    expect(choice.choose(layers, now(), falling)).toBe(h);
  });

  it('leaves at once a layer the estimate fell far below, or one its lossy link drops', () => {
    // A link dropped from 5 Mbit/s to 300 kbit/s: libwebrtc's REMB falls to what arrives.
    const dropped = publisher();
    const choice = new LayerChoice();
    choice.choose(dropped.layers, dropped.now(), {});
    dropped.run(200);
    // 420 kbit/s would take h (370) at 90 %; just after a drop it is taken at 60 %: q.
    const fell = { maxBitrate: 420_000, estimateFalling: true, sentBitrate: 900_000 };
    expect(choice.choose(dropped.layers, dropped.now(), fell)).toBe(dropped.q);
    // A fall to just under the layer is the estimate's noise until it lasts.
    const short = publisher();
    const patient = new LayerChoice();
    patient.choose(short.layers, short.now(), {});
    short.run(200);
    const under = { maxBitrate: 800_000, estimateFalling: true, sentBitrate: 900_000 };
    expect(patient.choose(short.layers, short.now(), under)).toBe(short.f);
    // The same estimate with a receiver report losing over a tenth: the link is dropping it.
    short.run(200);
    expect(patient.choose(short.layers, short.now(), { ...under, lossy: true })).toBe(short.h);
    // Loss alone never pauses the video: the lowest layer stays while the estimate has room,
    // however little got through.
    short.run(200);
    const lossy = { maxBitrate: 800_000, lossy: true, lossBound: 40_000 };
    expect(patient.choose(short.layers, short.now(), lossy)).toBe(short.q);
    short.run(DOWN_AFTER_MS + 1_000, (at) => patient.choose(short.layers, at, lossy));
    expect(patient.choose(short.layers, short.now(), lossy)).toBe(short.q);
  });
});

describe('probing up', () => {
  /** Short of h's 370 kbit/s with its margin, and within a probe's reach (`PROBE_REACH`). */
  const SHORT_OF_H = 220_000;
  /** A viewer moved down to q by a falling estimate of 150 kbit/s. */
  function downToLowest() {
    const published = publisher();
    const choice = new LayerChoice();
    choice.choose(published.layers, published.now(), {});
    published.run(DOWN_AFTER_MS + 200, (at) =>
      choice.choose(published.layers, at, { maxBitrate: 150_000, estimateFalling: true }),
    );
    expect(choice.choose(published.layers, published.now(), { maxBitrate: 150_000 })).toBe(
      published.q,
    );
    return { ...published, choice };
  }

  it('moves up a layer at a time once the estimate rose under a probe at its rate, without waiting for the estimate to reach it', () => {
    const { layers, choice, h, f, run, now } = downToLowest();
    const startedAt = now();
    // The estimate is quiet (no fall) and climbs 8 % a second, short of h's 370 kbit/s with its margin.
    const quiet = (at: number) => ({
      maxBitrate: SHORT_OF_H * 1.08 ** ((at - startedAt) / 1000),
      estimateRising: true,
      estimateAt: at,
    });
    const probing: boolean[] = [];
    run(PROBE_QUIET_MS + PROBE_WINDOW_MS + 200, (at) => {
      choice.choose(layers, at, quiet(at));
      probing.push(choice.probingUp);
    });
    expect(probing.slice(0, (PROBE_QUIET_MS - 200) / 100).some(Boolean)).toBe(false);
    expect(probing.at(-5)).toBe(true);
    let chosen = choice.choose(layers, now(), quiet(now()));
    expect(chosen).toBe(h);
    // The probe's rate stands in for the estimate: h is kept, and f is probed next once the
    // viewer's own estimate carries h and f is within a probe's reach of it (not on the stand-in
    // alone: on a weak link such a probe sent 640x360's rate into it, decision 0092).
    const probesF = Math.max(
      h.bitrate(now()) / FIT_SHARE,
      (f.bitrate(now()) * PROBE_MARGIN) / PROBE_REACH,
    );
    let onTopAt: number | undefined;
    run(2 * FIRST_RETRY_MS, (at) => {
      chosen = choice.choose(layers, at, quiet(at));
      if (chosen === f) onTopAt ??= at;
      if (quiet(at).maxBitrate < probesF) expect(choice.probingUp).toBe(false);
      expect(chosen === h || chosen === f).toBe(true);
    });
    expect(chosen).toBe(f);
    // From 220 kbit/s to the top layer in seconds (the estimate alone: 25–40 s in the lab).
    const estimateProbesF = (Math.log(probesF / SHORT_OF_H) / Math.log(1.08)) * 1000;
    expect((onTopAt ?? Infinity) - startedAt).toBeLessThanOrEqual(
      estimateProbesF + PROBE_WINDOW_MS + 1_000,
    );
  });

  it('says its padding is on the link during a probe and its aftermath: the loss then is the probe’s, not the line’s', () => {
    const { layers, choice, run, now } = downToLowest();
    const quiet = { maxBitrate: SHORT_OF_H };
    expect(choice.probeOnLink(now())).toBe(false);
    run(PROBE_QUIET_MS + 200, (at) => choice.choose(layers, at, quiet));
    expect(choice.probingUp).toBe(true);
    expect(choice.probeOnLink(now())).toBe(true);
    run(200, (at) =>
      choice.choose(layers, at, { maxBitrate: 0.9 * SHORT_OF_H, estimateFalling: true }),
    );
    expect(choice.probingUp).toBe(false);
    // Last seen under way a choice or two before (one each 100 ms): on the link until its
    // aftermath ends.
    const ended = now();
    run(PROBE_AFTERMATH_MS + 200, (at) => {
      choice.choose(layers, at, quiet);
      if (at - ended < PROBE_AFTERMATH_MS - 400) expect(choice.probeOnLink(at)).toBe(true);
    });
    expect(choice.probingUp).toBe(false);
    expect(choice.probeOnLink(now())).toBe(false);
  });

  it('fails when the estimate falls during the probe: the layer waits before it is probed again', () => {
    const { layers, choice, q, h, run, now } = downToLowest();
    const quiet = { maxBitrate: SHORT_OF_H };
    run(PROBE_QUIET_MS + 200, (at) => choice.choose(layers, at, quiet));
    expect(choice.probingUp).toBe(true);
    // The probe over-uses the link: the viewer's estimate falls.
    const fallen = { maxBitrate: 0.9 * SHORT_OF_H, estimateFalling: true };
    run(200, (at) => choice.choose(layers, at, fallen));
    expect(choice.probingUp).toBe(false);
    const probing: boolean[] = [];
    run(FIRST_RETRY_MS - 500, (at) => {
      expect(choice.choose(layers, at, quiet)).toBe(q);
      probing.push(choice.probingUp);
    });
    expect(probing.some(Boolean)).toBe(false);
    // The estimate climbs again under the next probe: up.
    const from = now();
    const climbing = (at: number) => ({ maxBitrate: SHORT_OF_H * 1.08 ** ((at - from) / 1000) });
    run(PROBE_WINDOW_MS + 1_000, (at) => choice.choose(layers, at, climbing(at)));
    expect(choice.choose(layers, now(), climbing(now()))).toBe(h);
  });

  it.each([
    ['holds still', 0],
    ['climbs only 2 % a second', 0.02],
  ])('fails when the estimate %s under it: a link short of the probed rate', (_name, climb) => {
    const { layers, choice, q, run, now } = downToLowest();
    const from = now();
    // A REMB each step (a 400 kbit/s link the probe toward h fills, its queue not yet seen).
    run(PROBE_QUIET_MS + PROBE_WINDOW_MS + FIRST_RETRY_MS, (at) => {
      const maxBitrate = SHORT_OF_H * (1 + climb) ** ((at - from) / 1000);
      expect(choice.choose(layers, at, { maxBitrate, estimateAt: at })).toBe(q);
    });
  });

  it('does not move up on room in an estimate that is still coming down', () => {
    const { layers, choice, q, h, run, now } = downToLowest();
    // Just after a drop: the REMB falls 3 % each report, yet stays over h's need for seconds.
    let estimate = 800_000;
    run(UP_AFTER_MS + 400, (at) => {
      if (at % 200 === 0) estimate *= 0.97;
      expect(choice.choose(layers, at, { maxBitrate: estimate, estimateFalling: true })).toBe(q);
    });
    expect(estimate).toBeGreaterThan(h.bitrate(now()) * 1.15);
    const steady = { maxBitrate: estimate };
    run(UP_AFTER_MS + 300, (at) => choice.choose(layers, at, steady));
    expect(choice.choose(layers, now(), steady)).toBe(h);
  });

  it('fails without a REMB during it: a cut link sends no feedback to fall', () => {
    const { layers, choice, q, run, now } = downToLowest();
    const silent = { maxBitrate: SHORT_OF_H, estimateAt: now() };
    run(PROBE_QUIET_MS + PROBE_WINDOW_MS + 200, (at) => choice.choose(layers, at, silent));
    expect(choice.choose(layers, now(), silent)).toBe(q);
  });

  it('fails when a receiver report during the probe shows loss, and waits the first retry time each time', () => {
    const { layers, choice, q, run, now } = downToLowest();
    const quiet = { maxBitrate: SHORT_OF_H };
    // Probes, each met by a report losing 8 % (a link a little short of the probed rate, before
    // the delay-based estimate falls): each comes the first retry time after the one before, not
    // twice as late each time.
    const probeStarts: number[] = [];
    let wasProbing = false;
    let lossAt: number | undefined;
    run(PROBE_QUIET_MS + 3 * (FIRST_RETRY_MS + 1_000), (at) => {
      if (choice.probingUp && !wasProbing) {
        probeStarts.push(at);
        lossAt = at + 500;
      }
      wasProbing = choice.probingUp;
      const loss =
        lossAt !== undefined && at >= lossAt ? { fraction: 0.08, at: lossAt } : undefined;
      expect(choice.choose(layers, at, { ...quiet, loss })).toBe(q);
    });
    expect(probeStarts.length).toBeGreaterThanOrEqual(3);
    const [first = 0, second = 0, third = 0] = probeStarts;
    expect(second - first).toBeLessThanOrEqual(FIRST_RETRY_MS + 1_000);
    expect(third - second).toBeLessThanOrEqual(FIRST_RETRY_MS + 1_000);
    expect(now()).toBeGreaterThan(third);
  });
});

describe('a viewer whose estimate starts low', () => {
  it('keeps the layer while the estimate catches up with what it is sent, and leaves it once it stops short', () => {
    const { layers, f, h, run, now } = publisher();
    const choice = new LayerChoice();
    expect(choice.choose(layers, now(), {})).toBe(f);
    // The first estimate came while the viewer was still sent the middle layer (f's key frame late
    // on a loaded machine): what arrived, well under f, yet nothing refused.
    const first = { maxBitrate: 450_000, sentBitrate: 380_000 };
    run(DOWN_AFTER_MS + 500, (at) => choice.choose(layers, at, first));
    expect(choice.choose(layers, now(), first)).toBe(f);
    // Sent f now: the estimate climbs about 8 % a second toward it, every REMB higher.
    let estimate = 450_000;
    run(4_000, (at) => {
      estimate *= 1.008;
      choice.choose(layers, at, {
        maxBitrate: estimate,
        estimateRising: true,
        sentBitrate: 950_000,
      });
    });
    expect(choice.choose(layers, now(), { maxBitrate: estimate, estimateRising: true })).toBe(f);
    // It stops well short of what f is sent, without climbing: the link does not carry f.
    const short = { maxBitrate: 600_000, estimateRising: false, sentBitrate: 950_000 };
    run(DOWN_AFTER_MS + 200, (at) => choice.choose(layers, at, short));
    expect(choice.choose(layers, now(), short)).toBe(h);
  });
});

describe('a viewer moving down', () => {
  /** A viewer of two layers, the top one first; its key frame requests in `asked`. */
  const movingViewer = (moveDownAtOnce?: () => boolean) => {
    const asked: string[] = [];
    const q = layer('q');
    const f = layer('f');
    const layers = new VideoLayers([q, f]);
    const viewer = new LayerSwitch({
      target: () => (target === 'q' ? q : f),
      askKeyFrame: (wanted) => asked.push(wanted.rid ?? ''),
      moveDownAtOnce,
    });
    let target: 'q' | 'f' = 'f';
    const key = (width: number) =>
      Buffer.from([0x10, 0, 0, 0, 0x9d, 0x01, 0x2a, width & 0xff, width >> 8, 90, 0]);
    const inter = Buffer.from([0x10, 0x01, 0, 0]);
    const send = (from: 'q' | 'f', sequenceNumber: number, timestamp: number, keyFrame = false) => {
      const sent = from === 'q' ? q : f;
      const rtp = new RtpPacket(
        new RtpHeader({ ssrc: from === 'q' ? 1 : 3, sequenceNumber, timestamp }),
        keyFrame ? key(from === 'f' ? 640 : 160) : inter,
      );
      const at = timestamp / 90;
      const start = sent.receive(rtp, at);
      layers.update(at);
      return viewer.accept(rtp, sent, start, at) ? rtp.header.sequenceNumber : undefined;
    };
    const moveTo = (rid: 'q' | 'f') => {
      target = rid;
    };
    return { viewer, asked, send, moveTo, q };
  };

  it('is sent no more of the higher layer from its next frame until the lower key frame', () => {
    const { viewer, asked, send, moveTo, q } = movingViewer();
    send('q', 100, 0, true);
    expect(send('f', 500, 0, true)).toBe(500);
    expect(send('f', 501, 3_000)).toBe(501);
    moveTo('q');
    expect(send('f', 502, 3_000)).toBe(502); // the frame begun is finished
    expect(send('f', 503, 6_000)).toBeUndefined();
    expect(asked).toEqual(['q']);
    expect(viewer.paused).toBe(false); // moving, not paused
    expect(send('q', 101, 9_000, true)).toBe(503);
    expect(viewer.current).toBe(q);
  });

  it('to a layer it chose keeps its picture moving on the higher layer until the lower key frame', () => {
    const { viewer, asked, send, moveTo, q } = movingViewer(() => false);
    send('q', 100, 0, true);
    expect(send('f', 500, 0, true)).toBe(500);
    moveTo('q');
    // A tile asking for its own size just after its first frame: the top layer goes on.
    expect(send('f', 501, 3_000)).toBe(501);
    expect(send('f', 502, 6_000)).toBe(502);
    expect(asked).toEqual(['q']);
    expect(send('q', 101, 9_000, true)).toBe(503);
    expect(viewer.current).toBe(q);
    expect(send('f', 503, 9_000)).toBeUndefined();
  });

  it('that chose a layer and then its own again before the move is left where it was', () => {
    const { viewer, asked, send, moveTo } = movingViewer(() => false);
    send('q', 100, 0, true);
    expect(send('f', 500, 0, true)).toBe(500);
    moveTo('q');
    expect(send('f', 501, 3_000)).toBe(501);
    moveTo('f');
    expect(send('f', 502, 6_000)).toBe(502);
    // The lower key frame that comes after all: no move, nothing asked for again.
    expect(send('q', 101, 9_000, true)).toBeUndefined();
    expect(send('f', 503, 9_000)).toBe(503);
    expect(viewer.switches).toBe(0);
    expect(asked).toEqual(['q']);
  });
});

describe('a layer the publisher pauses', () => {
  it('is given back to the viewer as soon as it returns, without waiting for the estimate', () => {
    const { layers, h, f, run, now } = publisher();
    const choice = new LayerChoice();
    const estimate = { maxBitrate: 800_000, estimateFalling: false };
    choice.choose(layers, now(), {});
    expect(choice.choose(layers, now(), estimate)).toBe(f);
    // f stops for a second: the viewer falls back to h.
    const stopped = now();
    run(1_000, (at) => {
      f.lastPacketAt = stopped;
      layers.update(at);
      choice.choose(layers, at, estimate);
    });
    expect(choice.choose(layers, now(), estimate)).toBe(h);
    // It returns: back on it at once (the estimate, bounded by what h brings, is not asked).
    run(200, (at) => choice.choose(layers, at, estimate));
    expect(choice.choose(layers, now(), estimate)).toBe(f);
  });
});

describe('a viewer on a line that loses packets of its own', () => {
  /** Layers sending the synthetic cameras' packets a second: q 20, h 40, f 90. */
  const packetsPublisher = () => publisher({ q: 2, h: 4, f: 9 });

  it('is moved to the layer whose retransmissions keep it waiting least, and not probed back up while the line stays so', () => {
    const { layers, q, f, run, now } = packetsPublisher();
    const choice = new LayerChoice();
    // An estimate with room for every layer: the line loses 2 % on its own, its round trip 300 ms.
    const line = { maxBitrate: 5_000_000, lineLoss: 0.02, roundTripMs: 300 };
    expect(choice.choose(layers, now(), { maxBitrate: 5_000_000 })).toBe(f);
    // f: 90 packets a second × 2 % × 0.3 s = over half the time waiting; q: 20 × 0.006 = 12 %.
    const chosen: (VideoLayer | null | undefined)[] = [];
    run(30_000, (at) => chosen.push(choice.choose(layers, at, line)));
    expect(chosen.slice(DOWN_AFTER_MS / 100 + 1).every((each) => each === q)).toBe(true);
    // Never a probe toward a layer the line does not carry.
    expect(choice.probingUp).toBe(false);
    expect(choice.probeTarget(layers, now(), line)).toBeUndefined();
  });

  it('keeps the top layer when the round trip is short or the line loses nothing', () => {
    const { layers, f, run } = packetsPublisher();
    for (const line of [
      { maxBitrate: 5_000_000, lineLoss: 0.02, roundTripMs: 50 },
      { maxBitrate: 5_000_000, lineLoss: 0, roundTripMs: 300 },
      { maxBitrate: 5_000_000, roundTripMs: 300 },
    ]) {
      const choice = new LayerChoice();
      run(10_000, (at) => expect(choice.choose(layers, at, line)).toBe(f));
    }
  });

  it('is never paused for it: the lowest layer is always carried', () => {
    const { layers, q, run } = packetsPublisher();
    const choice = new LayerChoice();
    const line = { maxBitrate: 5_000_000, lineLoss: 0.3, roundTripMs: 600 };
    run(5_000, (at) => choice.choose(layers, at, line));
    run(10_000, (at) => expect(choice.choose(layers, at, line)).toBe(q));
  });
});
