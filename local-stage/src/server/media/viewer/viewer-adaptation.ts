/**
 * What one viewer's video is adapted to: its bandwidth estimate, from the REMB its browser sends
 * (libwebrtc's receive-side estimator, fed by the absolute send time the stage stamps on every
 * packet), the layer chosen from it with hysteresis (`LayerChoice`, layer-choice.ts), the probe that
 * lets the estimate grow past what the viewer receives, and whether its video is paused
 * (docs/decisions/0069-viewer-bandwidth-estimate.md).
 */
import {
  ReceiverEstimatedMaxBitrate,
  RtcpPayloadSpecificFeedback,
  RtcpRrPacket,
  type RtcpPacket,
} from 'werift';
import { RateWindow } from '../publisher/rate-window';
import type { VideoLayer, VideoLayers } from '../publisher/video-layers';
import { LayerChoice } from './layer-choice';

/** How often the probe sends, and the pause is looked at. */
export const PROBE_INTERVAL_MS = 50;
/**
 * The probe fills what is forwarded up to this share of the estimate at most (never all of it:
 * the audio and the headers share the link), and to the next layer's need at most. The viewer's
 * estimate may grow to 1.5 times what it receives, so this lets it grow.
 */
export const PROBE_SHARE = 0.85;
/** A REMB's fall or climb counts this long (libwebrtc sends one at least every second). */
export const ESTIMATE_NEWS_MS = 1_500;
/** A loss bound older than this is forgotten (no report for that long). */
export const ESTIMATE_TTL_MS = 5_000;
/** The estimate is told the viewer at most this often, when it moved by `REPORT_CHANGE` or more. */
export const REPORT_INTERVAL_MS = 1_000;
const REPORT_CHANGE = 0.1;
/**
 * A receiver report losing more than this share of the viewer's video bounds its estimate to what
 * got through: what its link was offered (the layer's rate, and the retransmissions, probe
 * padding and audio sent beside it over the last second), less the loss (the rate its link
 * carried; libwebrtc's sender applies a loss-based bound to its own estimate the same way;
 * decision 0108). The REMB estimator is delay-based, and before its first report (up to 5 s into
 * a stream, 5.5 s beside another viewer on a loaded machine) a link that cannot carry the layer
 * only shows as loss.
 */
export const LOSS_HIGH = 0.1;
/**
 * Loss while the REMB estimate has this many times what the viewer is sent is the line's own
 * (random loss, a jittery path: the lab's 2 % loss with 300 ms RTT reports 12–14 %), not
 * congestion: the delay-based estimate sees congestion, and loss then moves nothing.
 */
export const LOSS_IGNORED_ROOM = 2;
/**
 * A receiver report counts the packets since the report before. One whose count began before a
 * layer change (or within this long after it: packets of the layer before still queued on the
 * way) tells of the layer before, so it moves nothing.
 */
export const LOSS_SETTLE_MS = 100;
/**
 * ...and within this long after a move down: the layer left over-filled the link, and its queue
 * and the retransmissions it asked for still crowd out the new layer's first packets. In the
 * network lab, 320x180 just after a move from 640x360 lost 50–90 % of its packets for 0.8 s on a
 * 600 kbit/s link, and none after; counted, that loss took the viewer on to 160x90, or stood as
 * the line's own loss that kept it there (decision 0108).
 */
export const LOSS_SETTLE_DOWN_MS = 1_000;
/**
 * Loss is judged over at least this many packets: about a second of the top layer. Over 20
 * (libwebrtc's loss-based estimate, which smooths its decreases besides), a line losing 2 % at
 * random shows three lost in one window, "15 %", in about half of all 20-second stretches; the
 * viewer then stepped down a layer and froze for the key frame (3 s in a Chromium 150 run). Over
 * 100, 2 % reads over 10 % about once in 100,000 windows, and a 15 % loss still shows.
 */
export const LOSS_MIN_PACKETS = 100;
/**
 * The line's own loss (`lineLoss`) is the loss of the last this-many packets or so, counted only
 * from reports while the estimate, not falling, is at least what is sent (`LINE_LOSS_ROOM`
 * times it): the delay-based estimate falls under what a congested link is sent, so loss beside
 * one above it is the line's (congestion's loss is the estimate's business, and leaves with the
 * layer that caused it). libwebrtc's REMB on a lossy line with room sat at 1.05–1.17 times the
 * top layer's payload (the audio and headers count in it), never twice it. Nor while a probe up,
 * or its aftermath, is on the link: it sends past what the link carries (decision 0108).
 */
export const LINE_LOSS_PACKETS = 300;
export const LINE_LOSS_ROOM = 1;
/**
 * Nor from reports this soon after the video started: what a start loses is its own burst's (a
 * key frame, the frames held while the viewer connected, the encoder's overshoot after it, even
 * paced: start-pacer.ts), over a queue libwebrtc's delay-based estimate has not yet seen. Counted
 * as the line's, 7 % lost at a 2,000 kbit/s start, with the round trip of that queue, kept the
 * viewer off 640x360 for 10 s (the network lab, decision 0102).
 */
export const LINE_LOSS_AFTER_START_MS = 2_000;
/** What the viewer was sent is measured over this window (libwebrtc's throughput window). */
const SENT_WINDOW_MS = 1_000;

export class ViewerAdaptation {
  /**
   * The layer the viewer chose by hand (its rid; null: the stage chooses); it wins over the
   * estimate while it arrives. Kept here only: the subscription's layer switch reads it too.
   */
  preferredRid: string | null = null;
  /** Bytes sent as probes. */
  probeBytes = 0;
  private estimateValue: { bitrate: number; at: number } | undefined;
  /** REMBs about the viewer's video so far. */
  private estimates = 0;
  /**
   * The bound from the viewer's receiver reports: set by a loss over `LOSS_HIGH`, kept while
   * there is no REMB (the layer chosen by it is not to be left for the top one by a lack of
   * estimate), gone with the first report under it once a REMB speaks for the link.
   */
  private lossBoundValue: { bitrate: number; at: number } | undefined;
  /** Whether the last receiver report lost more than `LOSS_HIGH` of the video. */
  private lossy = false;
  /** The share of the video the last reports lost (over `LOSS_MIN_PACKETS` or more), and when. */
  loss: { fraction: number; at: number } | undefined;
  /** The last receiver report's running totals: its extended highest sequence number, lost. */
  private lastReport: { highest: number; lost: number; at: number } | undefined;
  /** Packets expected and lost since the loss was last judged. */
  private lossWindow: { expected: number; lost: number } | undefined;
  /** Packets expected and lost on the line while the estimate had room (see `lineLoss`). */
  private line = { expected: 0, lost: 0 };
  /** Whether the last REMB came lower than the one before (by more than REMB's own 3 % step). */
  private falling = false;
  /** Whether the last REMB came higher than the one before (the estimate climbing to the rate). */
  private rising = false;
  /** Video bytes sent to the viewer (forwarded and probes). */
  private readonly sent = new RateWindow(SENT_WINDOW_MS);
  /** Audio bytes sent to the viewer: never paused, it shares the link with any probe. */
  private readonly audio = new RateWindow(SENT_WINDOW_MS);
  /** Video bytes sent again beside the layer: retransmissions and probe padding. */
  private readonly again = new RateWindow(SENT_WINDOW_MS);
  private readonly roundTripMs: () => number | undefined;
  private readonly choice = new LayerChoice();
  private readonly layers: () => VideoLayers;
  private readonly current: () => VideoLayer | undefined;
  private readonly pad: (bytes: number) => number;
  private readonly paused: () => boolean;
  private readonly report: (videoPaused: boolean, estimate: number | undefined) => void;
  private reported: { at: number; estimate: number | undefined } | undefined;
  private readonly videoSsrc: () => number | undefined;
  private readonly onLayer: (layer: VideoLayer | undefined, estimate: number | undefined) => void;
  private readonly sendsRemb: () => boolean;
  private lastLayer: VideoLayer | undefined;
  /** When the layer forwarded last changed (or stopped, or started). */
  private layerChangedAt = -Infinity;
  /** How long reports after that change tell of the layer before (`LOSS_SETTLE_DOWN_MS`). */
  private settleMs = LOSS_SETTLE_MS;
  private timer: NodeJS.Timeout | undefined;
  private pausedValue = false;

  /** When the viewer's video started (`start`). */
  private startedAt: number | undefined;

  constructor(options: {
    layers: () => VideoLayers;
    /** The layer forwarded now. */
    current: () => VideoLayer | undefined;
    /** Sends about this many bytes of probe; returns how many went. */
    pad: (bytes: number) => number;
    /** Whether no layer is forwarded because none fits. */
    paused: () => boolean;
    /** The pause changed, or the estimate moved: for the viewer (at most once a second). */
    report: (videoPaused: boolean, estimate: number | undefined) => void;
    /** The SSRC of the video sent to the viewer (a REMB about it is its estimate). */
    videoSsrc: () => number | undefined;
    /**
     * Whether the viewer negotiated REMB (a browser does; the recorder and thumbnail processes'
     * werift players do not): only then does loss bound its layer, as a stand-in for the REMB to
     * come. A viewer without it keeps the highest layer, as before (decision 0069).
     */
    sendsRemb?: () => boolean;
    /** The layer forwarded changed (undefined: paused), with the estimate it was chosen by. */
    onLayer?: (layer: VideoLayer | undefined, estimate: number | undefined) => void;
    /** The round trip to the viewer, ms, from its receiver reports of the video. */
    roundTripMs?: () => number | undefined;
  }) {
    this.layers = options.layers;
    this.current = options.current;
    this.pad = options.pad;
    this.paused = options.paused;
    this.report = options.report;
    this.videoSsrc = options.videoSsrc;
    this.onLayer = options.onLayer ?? (() => undefined);
    this.sendsRemb = options.sendsRemb ?? (() => true);
    this.roundTripMs = options.roundTripMs ?? (() => undefined);
  }

  /** The viewer's estimated bandwidth, bit/s: its last REMB's; undefined before its first. */
  estimate(): number | undefined {
    // Never forgotten: libwebrtc sends one at least every second, so a stale one means the
    // viewer's RTCP stopped getting through (its link cut), and its link carries no more than it
    // said. Forgetting it put a paused viewer back on the top layer, to pause again.
    return this.estimateValue?.bitrate;
  }

  /** What got through while the viewer's reports showed loss, bit/s (see `LOSS_HIGH`). */
  lossBound(now = performance.now()): number | undefined {
    return fresh(this.lossBoundValue, now);
  }

  /**
   * The share of packets the viewer's line loses on its own, over the last `LINE_LOSS_PACKETS`
   * or so; undefined before 20 are counted.
   */
  lineLoss(): number | undefined {
    const { expected, lost } = this.line;
    return expected < LOSS_MIN_PACKETS ? undefined : Math.min(Math.max(lost / expected, 0), 1);
  }

  /**
   * Whether the viewer's link carries `layer`: no loss on it now, and its estimate (when there is
   * one yet) at least the layer's bitrate.
   */
  carries(layer: VideoLayer, now = performance.now()): boolean {
    const estimate = this.estimate();
    return !this.lossy && (estimate === undefined || estimate >= layer.bitrate(now));
  }

  /** Whether the viewer's video is paused: not even the lowest layer fits its link. */
  get videoPaused(): boolean {
    return this.pausedValue;
  }

  /** The layer for the viewer now (null: none, paused). */
  target(now = performance.now()): VideoLayer | null | undefined {
    return this.choice.choose(this.layers(), now, {
      maxBitrate: this.estimate(),
      preferredRid: this.preferredRid,
      estimateFalling: this.falling && this.estimateRecent(now),
      estimateRising: this.rising && !this.lossy && this.estimateRecent(now),
      sentBitrate: this.sentBitrate(now),
      lossy: this.lossy,
      loss: this.loss,
      lossBound: this.lossBound(now),
      estimateAt: this.estimateValue?.at,
      firstEstimate: this.estimates === 1,
      lineLoss: this.lineLoss(),
      roundTripMs: this.roundTripMs(),
    });
  }

  /** A video packet's payload sent to the viewer. */
  forwarded(bytes: number, now = performance.now()): void {
    this.sent.add(now, bytes);
  }

  /** A video packet's payload sent again, for the viewer's NACK. */
  retransmitted(bytes: number, now = performance.now()): void {
    this.again.add(now, bytes);
  }

  /** An audio packet's payload sent to the viewer. */
  audioForwarded(bytes: number, now = performance.now()): void {
    this.audio.add(now, bytes);
  }

  /** Bits a second of video sent to the viewer over the last second. */
  sentBitrate(now = performance.now()): number {
    return this.sent.rates(now).bitrate;
  }

  /**
   * Any RTCP from the viewer: a REMB about its video is its new estimate; a receiver report about
   * it, the loss that may bound it.
   */
  onRtcp(packet: RtcpPacket, now = performance.now()): void {
    if (packet instanceof RtcpRrPacket) {
      this.onReceiverReport(packet, now);
      return;
    }
    if (!(packet instanceof RtcpPayloadSpecificFeedback)) return;
    const feedback = packet.feedback;
    if (!(feedback instanceof ReceiverEstimatedMaxBitrate)) return;
    const ssrc = this.videoSsrc();
    if (ssrc === undefined || !feedback.ssrcFeedbacks.includes(ssrc)) return;
    const bitrate = Number(feedback.bitrate);
    if (!Number.isFinite(bitrate)) return;
    const previous = this.estimateValue?.bitrate;
    // Each REMB is news: one equal to the last (libwebrtc's periodic one) is no fall any more.
    this.falling = previous !== undefined && bitrate < previous * 0.97;
    this.rising = previous !== undefined && bitrate > previous;
    this.estimateValue = { bitrate, at: now };
    this.estimates += 1;
  }

  private onReceiverReport(packet: RtcpRrPacket, now: number): void {
    const ssrc = this.videoSsrc();
    const report = packet.reports.find((each) => each.ssrc === ssrc);
    if (report === undefined) return;
    const previous = this.lastReport;
    this.lastReport = { highest: report.highestSequence, lost: report.packetsLost, at: now };
    if (previous === undefined) return;
    if (
      !this.sendsRemb() ||
      previous.at - this.layerChangedAt < this.settleMs ||
      this.current() === undefined
    ) {
      this.lossWindow = undefined;
      this.lossy = false;
      return;
    }
    // Counted over at least `LOSS_MIN_PACKETS`, from the reports' running totals: one lost of
    // the eight a report made 200 ms after the last may count is no 12 % loss.
    const window = (this.lossWindow ??= { expected: 0, lost: 0 });
    const expected = (report.highestSequence - previous.highest) >>> 0;
    window.expected += expected < 0x10000 ? expected : 0;
    window.lost += report.packetsLost - previous.lost;
    if (window.expected < LOSS_MIN_PACKETS) return;
    this.lossWindow = undefined;
    const loss = Math.min(Math.max(window.lost / window.expected, 0), 1);
    this.loss = { fraction: loss, at: now };
    // What the viewer was sent since the report before: its layer's rate (the report counts
    // only that layer's packets; the rates of the few packets between two reports are noise).
    const sent = this.current()?.bitrate(now) ?? 0;
    const estimate = this.estimate();
    const started =
      this.startedAt === undefined || now - this.startedAt >= LINE_LOSS_AFTER_START_MS;
    // A probe up fills the link past what it carries: its loss is the probe's (decision 0108).
    const probeLoss = this.choice.probeOnLink(now);
    if (
      started &&
      !probeLoss &&
      estimate !== undefined &&
      !this.falling &&
      estimate >= LINE_LOSS_ROOM * sent
    ) {
      this.countLineLoss(window);
    }
    this.lossy =
      loss > LOSS_HIGH && !(estimate !== undefined && estimate >= LOSS_IGNORED_ROOM * sent);
    if (this.lossy) {
      // The loss is of everything the link was offered, not the layer alone: a start over
      // 400 kbit/s lost 66–76 % of 640x360 while its retransmissions took as much of the link
      // again, and the layer's rate less the loss bounded the viewer to 160x90 (decision 0108).
      const offered = sent + this.again.rates(now).bitrate + this.audio.rates(now).bitrate;
      this.lossBoundValue = { bitrate: offered * (1 - loss), at: now };
    } else if (this.lossBoundValue !== undefined) {
      const rembSpeaks =
        this.estimateValue !== undefined && now - this.estimateValue.at <= ESTIMATE_TTL_MS;
      this.lossBoundValue = rembSpeaks ? undefined : { ...this.lossBoundValue, at: now };
    }
  }

  /** Adds a judged window to the line's loss, keeping about the last `LINE_LOSS_PACKETS`. */
  private countLineLoss(window: { expected: number; lost: number }): void {
    const line = this.line;
    const total = line.expected + window.expected;
    const keep =
      total > LINE_LOSS_PACKETS
        ? Math.max(LINE_LOSS_PACKETS - window.expected, 0) / line.expected
        : 1;
    this.line = {
      expected: line.expected * keep + window.expected,
      lost: line.lost * keep + Math.max(window.lost, 0),
    };
  }

  /**
   * Whether the last REMB is recent: its fall (or climb) is news only that long. A viewer with
   * nothing to receive (paused) may send no more REMBs, and its last fall must not keep it from
   * the quiet a probe toward the lowest layer waits for.
   */
  private estimateRecent(now: number): boolean {
    return this.estimateValue !== undefined && now - this.estimateValue.at <= ESTIMATE_NEWS_MS;
  }

  /** Whether the estimate is to be told again: a second since the last, and it moved. */
  private estimateMoved(estimate: number | undefined, now: number): boolean {
    const last = this.reported;
    if (last === undefined) return estimate !== undefined;
    if (now - last.at < REPORT_INTERVAL_MS || estimate === last.estimate) return false;
    if (estimate === undefined || last.estimate === undefined) return true;
    return Math.abs(estimate - last.estimate) >= REPORT_CHANGE * last.estimate;
  }

  /** Starts probing (once the viewer's video flows). */
  start(now = performance.now()): void {
    this.startedAt ??= now;
    this.timer ??= setInterval(() => this.tick(), PROBE_INTERVAL_MS);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Probes toward the next layer up while the estimate is short of it; tells a pause's change at
   * once, the estimate's when it moved.
   */
  tick(now = performance.now()): void {
    const paused = this.paused();
    const estimate = this.estimate();
    if (paused !== this.pausedValue || this.estimateMoved(estimate, now)) {
      this.pausedValue = paused;
      this.reported = { at: now, estimate };
      this.report(paused, estimate);
    }
    const current = this.current();
    if (current !== this.lastLayer) {
      const down =
        this.lastLayer !== undefined &&
        (current === undefined || current.bitrate(now) < this.lastLayer.bitrate(now));
      this.settleMs = down ? LOSS_SETTLE_DOWN_MS : LOSS_SETTLE_MS;
      this.lastLayer = current;
      this.layerChangedAt = now;
      this.onLayer(current, estimate);
    }
    const layers = this.layers();
    const target = this.choice.probeTarget(layers, now, {
      maxBitrate: estimate,
      preferredRid: this.preferredRid,
      lineLoss: this.lineLoss(),
      roundTripMs: this.roundTripMs(),
    });
    if (estimate === undefined || target === undefined) return;
    // A probe up sends the next layer's need even under an estimate above it: short of that
    // layer's `UP_MARGIN`, only the probe moves the viewer up.
    if (estimate >= target && !this.choice.probingUp) return;
    const forwarded = paused ? 0 : (current?.bitrate(now) ?? 0);
    // A probe up sends the next layer's whole need; otherwise the probe lets the estimate grow.
    // A paused viewer's link is already full of its audio: its probe only lets the estimate
    // grow, beside the audio, and never floods the link its pause's notice must cross.
    const room = paused
      ? Math.min(target, PROBE_SHARE * estimate) - this.audio.rates(now).bitrate
      : (this.choice.probingUp ? target : Math.min(target, PROBE_SHARE * estimate)) - forwarded;
    if (room <= 0) return;
    const padded = this.pad((room * PROBE_INTERVAL_MS) / 1000 / 8);
    this.probeBytes += padded;
    this.sent.add(now, padded);
    this.again.add(now, padded);
  }
}

/** A value's bitrate while it is fresh (`ESTIMATE_TTL_MS`). */
function fresh(
  value: { bitrate: number; at: number } | undefined,
  now: number,
): number | undefined {
  return value === undefined || now - value.at > ESTIMATE_TTL_MS ? undefined : value.bitrate;
}
