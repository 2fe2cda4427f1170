/**
 * Kept as one file: the choice's rules and the constants they are read against, each with the lab
 * measurement that set it, are one state machine; split, a rule and its reason drift apart.
 *
 * Which layer a viewer gets: its `LayerChoice`, the highest layer its bandwidth estimate carries,
 * with hysteresis, or none (its video paused) when even the lowest does not fit
 * (docs/decisions/0069-viewer-bandwidth-estimate.md). The viewer's own choice of a layer wins
 * while that layer arrives (docs/decisions/0068-layer-choice.md).
 */
import { arrivingLayers, type VideoLayer, type VideoLayers } from '../publisher/video-layers';

/** What a viewer's layer is chosen by: its bandwidth estimate, and its own choice of layer. */
export interface LayerConstraints {
  /** The viewer's estimated bandwidth, bits a second (undefined: none yet, no limit). */
  maxBitrate?: number | undefined;
  /** The layer the viewer chose by hand (its RTP stream id); it wins while it is arriving. */
  preferredRid?: string | null | undefined;
  /**
   * Whether the estimate has been falling (the viewer's link is over-used). While it is not, a
   * layer is left only when the estimate is under `STEADY_SHARE` of what the viewer is sent, and
   * not climbing: libwebrtc's estimate is bounded by what arrived (its first is what arrived, a
   * little under it) and climbs from there by about 8 % a second.
   */
  estimateFalling?: boolean | undefined;
  /** Whether the last estimate was higher than the one before (it is catching up, not refusing). */
  estimateRising?: boolean | undefined;
  /**
   * Bits a second of video sent to the viewer lately (its layer, probes): an estimate not falling
   * is compared with this, not with the layer chosen, which the viewer may not have been sent yet
   * (its key frame late, the publisher's encoder late with it on a loaded machine, the viewer's
   * own choice of a lower layer just given up). Undefined: the layer's bitrate.
   */
  sentBitrate?: number | undefined;
  /**
   * Whether the viewer's link is dropping what it is sent (its receiver report's loss over 10 %,
   * viewer-adaptation.ts): a layer that does not fit is then left at once.
   */
  lossy?: boolean | undefined;
  /** The share of the video the viewer's last receiver report lost, and when it came. */
  loss?: { fraction: number; at: number } | undefined;
  /**
   * When the estimate last came: a probe passes only on one that came during it. Undefined: an
   * estimate with every choice.
   */
  estimateAt?: number | undefined;
  /**
   * Whether the estimate is the viewer's first REMB. libwebrtc's first, after the over-use of a
   * start on the top layer, can sit far under what arrives whole: 51–56 kbit/s on a 600 kbit/s
   * link carrying 160x90 and its audio (decision 0089). It moves the viewer down, never pauses
   * its video; the REMBs after it climb from there, or fall.
   */
  firstEstimate?: boolean | undefined;
  /**
   * Bits a second that got through to the viewer while its reports showed loss (viewer-adaptation.ts):
   * a bound on the layer chosen, never a reason to pause the video (only the estimate pauses it).
   */
  lossBound?: number | undefined;
  /**
   * The share of packets the viewer's line loses on its own (measured while its estimate had
   * room, viewer-adaptation.ts), and its round trip, ms: with them, what a layer costs in waiting
   * for retransmissions (`lineCarries`).
   */
  lineLoss?: number | undefined;
  roundTripMs?: number | undefined;
}

/** A layer fits while its bitrate is at most this share of the estimate (audio and headers). */
export const FIT_SHARE = 0.9;
/**
 * The video pauses only when the estimate is under this share of the lowest layer: a viewer on it
 * has an estimate about its bitrate (libwebrtc's is bounded by what arrives), which any dip takes
 * under the fit; a link that cannot carry it takes the estimate far under.
 */
export const PAUSE_SHARE = 0.75;
/**
 * ...and at once, without a fall or the lowest layer's loss, under this share of it: a 40 kbit/s
 * link's REMB said 26 kbit/s (28 % of 160x90), where links carrying 160x90 whole held theirs at
 * 43–67 kbit/s (45–70 %) after a start's over-use (decision 0092).
 */
export const PAUSE_AT_ONCE_SHARE = 0.35;
/**
 * The lowest layer's own loss pauses the video only in a report this long after it was chosen:
 * one judged sooner counts the queue and the retransmissions the layer before left on the link
 * (100 packets of 160x90 take some 8 s; Firefox's first such report after a start on 640x360 over
 * 400 kbit/s lost 15 % and paused it for 10 s, decision 0092).
 */
export const PAUSE_LOSS_AFTER_MS = 10_000;
/** With an estimate that is not falling, a layer is left only below this share of its bitrate. */
export const STEADY_SHARE = 0.75;
/** A layer that does not fit for this long is left (a moment over is the estimate's noise). */
export const DOWN_AFTER_MS = 500;
/**
 * ...unless the estimate fell under this share of what the viewer is sent, or the link is lossy:
 * no noise does that; a link that dropped does, and every 100 ms waited is frozen picture.
 */
export const LEAVE_AT_ONCE_SHARE = 0.5;
/**
 * A layer left at once goes to one that fits this share of the estimate: the estimate just after
 * a drop counts the queue draining (libwebrtc's is 85 % of what arrived), and a layer chosen just
 * short of the link freezes the viewer again; one too low costs a probe's seconds up instead.
 * Not 80 %: that put a 400 kbit/s viewer on 320x180, which that link does not hold (decision 0089).
 */
export const AT_ONCE_FIT_SHARE = 0.6;
/** Up only when the estimate exceeds the next layer's bitrate by this factor... */
export const UP_MARGIN = 1.15;
/**
 * A probe up sends the next layer's bitrate times this, beside the audio the viewer gets anyway.
 * Not less: with 5 % a probe toward 320x180 (~290 kbit/s) passed on 400 kbit/s, and within 3 s on
 * it the viewer's reports lost 32 % (its key frames and their retransmissions overflow tbf's
 * 100 ms queue) and it fell back to 160x90 after a 9.8 s freeze (decision 0089).
 */
export const PROBE_MARGIN = UP_MARGIN;
/** ...for this long. */
export const UP_AFTER_MS = 2_000;
/**
 * A layer left because it did not fit is not chosen again for this long, doubled each time it is
 * left within `RETRY_RESET_MS` of being chosen (up to `MAX_RETRY_MS`): a link just short of a
 * layer would otherwise swing between it and the one below, a freeze at each try.
 */
export const FIRST_RETRY_MS = 8_000;
const MAX_RETRY_MS = 64_000;
const RETRY_RESET_MS = 30_000;
/**
 * Probing up: once the estimate has not fallen for `PROBE_QUIET_MS`, the stage sends the viewer
 * the next layer's rate (its own layer and RTX copies) for `PROBE_WINDOW_MS`; no fall in the
 * viewer's estimate meanwhile shows the link carries it, and the viewer moves up at once, the
 * probed rate standing in for the estimate until the estimate falls (libwebrtc's sender takes a
 * probe's result as its estimate the same way). A fall fails the probe: the layer waits as one left.
 * libwebrtc's receive-side estimate alone climbs about 8 % a second (decision 0069).
 */
export const PROBE_QUIET_MS = 3_000;
export const PROBE_WINDOW_MS = 2_000;
/**
 * A receiver report during the probe that lost more than this share also fails it: a link short
 * of the probed rate by a little drops packets before libwebrtc's delay-based estimate falls.
 */
export const PROBE_LOSS = 0.05;
/**
 * A probe up is sent only toward a layer whose rate (with `PROBE_MARGIN`) is at most this many
 * times the viewer's own estimate: libwebrtc's REMB is bounded by 1.5 times what arrives, so a
 * rate further off is a guess, and on a weak link a flood. From 320x180 (~180 kbit/s) a probe
 * toward 640x360 sends ~960 kbit/s: on 400 and 600 kbit/s links, with the REMB at 100–200
 * kbit/s, such probes lost 12–21 % and took the viewer back to 160x90 (decision 0092).
 */
export const PROBE_REACH = 2;
/**
 * A probe up also fails when the viewer's round trip grew under it by more than this, ms: the
 * link's queue is filling. libwebrtc's REMB rose 8 % under a probe toward 640x360 on 1,000
 * kbit/s (its 980 kbit/s and the audio over the link by a tenth) while the round trip went from
 * 1 to 103 ms, and 640x360 then lost 16 % (decision 0092).
 */
export const PROBE_QUEUE_MS = 30;
/**
 * For this long after a probe up failed, a falling estimate or a lossy report is still the
 * probe's (a REMB's fall counts 1.5 s; a report is judged over 100 packets, some 4 s of
 * 320x180): it moves the viewer off nothing. A probe from 320x180 toward 640x360 on 400 kbit/s
 * sends twice what the link carries, and its loss took the viewer down to 160x90 (decision 0089).
 */
export const PROBE_AFTERMATH_MS = 4_000;
/**
 * A probe passes only on an estimate that rose under it by this factor at least: half of what
 * libwebrtc's REMB climbs in the probe's 2 s on a link with room (8 % a second, faster once it
 * adds rather than multiplies). Near a link's rate it climbs a little before its delay detector
 * sees the queue (252 → 265 kbit/s under a probe toward 320x180 on 400 kbit/s): a smaller rise
 * is no proof of room (decision 0069).
 */
export const PROBE_RISE = 1.08;
/**
 * A layer the viewer's line carries keeps it waiting on retransmissions for at most this share of
 * the time: its packets a second, times the line's own loss, times the round trip each lost one
 * waits (libwebrtc holds a frame, and every frame after it, until its packets are whole). On 2 %
 * loss and a 300 ms round trip, 640x360 at ~90 packets a second waits over half the time and
 * plays 21 of its 30 frames; 160x90 at ~20 waits about a tenth. A line that loses nothing, or
 * whose round trip is short, carries every layer. Never a reason to pause: the lowest layer is
 * always carried.
 */
export const RETRANSMIT_WAIT_MAX = 0.15;
/** The choice is made again at most this often (it is asked at every packet). */
const CHOICE_INTERVAL_MS = 100;

/**
 * The layer for a viewer, without memory: the preferred one while it arrives; else the highest
 * arriving whose bitrate fits `maxBitrate`; null when none fits (the video paused); the highest
 * arriving when there is no estimate; undefined when nothing arrives.
 */
export function chooseLayer(
  layers: VideoLayers,
  now: number,
  constraints: LayerConstraints,
): VideoLayer | null | undefined {
  const preferred = layers.preferred(constraints.preferredRid, now);
  if (preferred) return preferred;
  if (constraints.maxBitrate === undefined || layers.all.length === 1) return layers.best;
  const arriving = arrivingLayers(layers, now);
  if (arriving.length === 0) return undefined;
  const maxBitrate = constraints.maxBitrate;
  return arriving.find((layer) => fits(layer, maxBitrate, now)) ?? null;
}

const fits = (layer: VideoLayer, maxBitrate: number, now: number) =>
  layer.bitrate(now) <= FIT_SHARE * maxBitrate;

/** Whether the viewer's line carries `layer` without waiting too long on retransmissions. */
export function lineCarries(
  layer: VideoLayer,
  constraints: LayerConstraints,
  now: number,
): boolean {
  const { lineLoss, roundTripMs } = constraints;
  if (lineLoss === undefined || roundTripMs === undefined) return true;
  return lineLoss * layer.packetRate(now) * (roundTripMs / 1000) <= RETRANSMIT_WAIT_MAX;
}

/**
 * One viewer's layer choice with hysteresis: down (or paused, below the lowest) once the layer
 * has not fitted the estimate for `DOWN_AFTER_MS`; up (or resumed) once the estimate has exceeded
 * the next layer's bitrate by `UP_MARGIN` for `UP_AFTER_MS`: to the highest layer it exceeds so
 * (the estimate climbs slowly; a step at a time would wait twice). A publisher of one
 * encoding is never adapted (nothing to fall back to; its own congestion control serves it).
 */
export class LayerChoice {
  /** The layer chosen; null: none (paused); undefined: none yet. */
  private chosen: VideoLayer | null | undefined;
  private overSince: number | undefined;
  private roomSince: number | undefined;
  private decidedAt = -Infinity;
  private decidedRid: string | null | undefined;
  private chosenAt = 0;
  /** The layer chosen before it stopped arriving: taken again as soon as it returns. */
  private fellBackFrom: VideoLayer | undefined;
  /** The probe up under way: toward `layer`, since `since`. */
  private probe:
    | { layer: VideoLayer; since: number; estimate: number; roundTripMs: number | undefined }
    | undefined;
  /** A probe's rate that got through, standing in for a lower estimate until it falls. */
  private probed: number | undefined;
  private lastFallAt = -Infinity;
  private probeFailedAt = -Infinity;
  /** When a probe up was last seen under way. */
  private probeSeenAt = -Infinity;
  /** Layers left for not fitting: not chosen again until `until`. */
  private readonly retries = new Map<VideoLayer, { until: number; waitMs: number }>();
  /** Layers a probe failed toward: not probed again until then (the estimate may still go up). */
  private readonly probeWaits = new Map<VideoLayer, number>();

  choose(
    layers: VideoLayers,
    now: number,
    constraints: LayerConstraints,
  ): VideoLayer | null | undefined {
    // Held once made; no choice yet (a publisher starting) is looked at again at the next packet,
    // or its highest layer's key frame, a few ms away, would go by unforwarded.
    if (
      this.chosen !== undefined &&
      now - this.decidedAt < CHOICE_INTERVAL_MS &&
      constraints.preferredRid === this.decidedRid
    ) {
      return this.chosen;
    }
    this.decidedAt = now;
    this.decidedRid = constraints.preferredRid;
    const chosen = this.decide(layers, now, constraints);
    if (chosen !== this.chosen) this.chosenAt = now;
    this.chosen = chosen;
    if (this.probe !== undefined) this.probeSeenAt = now;
    return chosen;
  }

  /** Whether a probe up is under way: the probe then sends the next layer's whole need. */
  get probingUp(): boolean {
    return this.probe !== undefined;
  }

  /**
   * Whether a probe up's padding may still be on the viewer's link: under way, or within its
   * aftermath (`PROBE_AFTERMATH_MS`). Loss then is the probe's, not the line's own.
   */
  probeOnLink(now: number): boolean {
    return this.probe !== undefined || now - this.probeSeenAt < PROBE_AFTERMATH_MS;
  }

  /**
   * The rate, bits a second, that would show whether the next layer up fits: its bitrate with
   * the margin, when the estimate is not already there (a probe sends up to it, at most the
   * estimate); undefined when there is nothing to probe for.
   */
  probeTarget(layers: VideoLayers, now: number, constraints: LayerConstraints): number | undefined {
    if (constraints.maxBitrate === undefined || layers.all.length === 1) return undefined;
    if (layers.preferred(constraints.preferredRid, now)) return undefined;
    const next = this.nextUp(arrivingLayers(layers, now));
    if (next === undefined || this.waiting(next, now) || !lineCarries(next, constraints, now)) {
      return undefined;
    }
    const target = next.bitrate(now) * PROBE_MARGIN;
    return target > 0 ? target : undefined;
  }

  private decide(
    layers: VideoLayers,
    now: number,
    constraints: LayerConstraints,
  ): VideoLayer | null | undefined {
    const preferred = layers.preferred(constraints.preferredRid, now);
    if (constraints.estimateFalling === true || constraints.lossy === true) {
      this.lastFallAt = now;
      // On a layer a probe moved the viewer to (the probed rate standing in for an estimate that
      // has not caught up), a fall or a loss during the next probe, or in its aftermath, is that
      // probe's: it fails the probe and moves nothing else (its padding over-used the link).
      const probes = this.probe !== undefined || now - this.probeFailedAt < PROBE_AFTERMATH_MS;
      if (probes && this.probed !== undefined) {
        if (this.probe !== undefined) this.probeFailed(this.probe.layer, now);
        this.probe = undefined;
        constraints = { ...constraints, estimateFalling: false, lossy: false };
      } else {
        this.probed = undefined;
      }
    }
    const estimate = constraints.maxBitrate;
    const byEstimate = estimate === undefined ? undefined : Math.max(estimate, this.probed ?? 0);
    const lossBound = constraints.lossBound;
    const maxBitrate =
      lossBound === undefined ? byEstimate : Math.min(byEstimate ?? Infinity, lossBound);
    if (preferred || maxBitrate === undefined || layers.all.length === 1) {
      this.overSince = undefined;
      this.roomSince = undefined;
      this.probe = undefined;
      // A first choice waits out a publisher's start for its highest layer, not its first.
      if (!preferred && this.chosen === undefined && layers.starting(now)) return undefined;
      return preferred ?? layers.best;
    }
    const arriving = arrivingLayers(layers, now);
    if (arriving.length === 0) return this.chosen === null ? null : undefined;
    // The publisher paused a layer (0067's fallback), not the viewer's link: back as it returns.
    const returned = this.fellBackFrom;
    if (returned !== undefined && arriving.includes(returned) && !this.waiting(returned, now)) {
      this.fellBackFrom = undefined;
      return returned;
    }
    const current = this.chosen === null ? null : arriving.find((layer) => layer === this.chosen);
    if (current === undefined && this.chosen) this.fellBackFrom ??= this.chosen;
    // A first choice, or the layer stopped arriving: the best that fits now, the lowest if none.
    if (current === undefined) return chooseLayer(layers, now, { maxBitrate }) ?? arriving.at(-1);
    // A lossy link leaves a layer for the one below at once, but never pauses the video: loss
    // with room in the estimate may be the line's own, not congestion (the estimate decides that).
    const aboveLowest = current !== null && arriving.indexOf(current) < arriving.length - 1;
    // A report judged before this layer was chosen tells of the layer before (decision 0089: one
    // lossy report took a viewer from 640x360 to 320x180 and, 100 ms later, on to 160x90).
    const lossOfThisLayer = constraints.loss === undefined || constraints.loss.at > this.chosenAt;
    const lossyOver = constraints.lossy === true && aboveLowest && lossOfThisLayer;
    // The line's own loss with a long round trip: the layer waits on retransmissions too long.
    const lineOver = aboveLowest && !lineCarries(current, constraints, now);
    const over =
      current !== null &&
      (lossyOver ||
        lineOver ||
        (constraints.estimateFalling === true
          ? !fits(current, maxBitrate, now)
          : constraints.estimateRising !== true &&
            maxBitrate <
              STEADY_SHARE * Math.min(current.bitrate(now), constraints.sentBitrate ?? Infinity)));
    if (current !== null && over) {
      this.roomSince = undefined;
      this.overSince ??= now;
      const sent = Math.min(current.bitrate(now), constraints.sentBitrate ?? Infinity);
      const atOnce =
        lossyOver ||
        (constraints.estimateFalling === true && maxBitrate < LEAVE_AT_ONCE_SHARE * sent);
      if (!atOnce && now - this.overSince < DOWN_AFTER_MS) return current;
      this.overSince = undefined;
      const lower = arriving.slice(arriving.indexOf(current) + 1);
      const lowest = arriving.at(-1) ?? current;
      // None fits: paused, if the estimate is far under the lowest; else the lowest layer.
      const room = atOnce ? (AT_ONCE_FIT_SHARE / FIT_SHARE) * maxBitrate : maxBitrate;
      // A low estimate that holds still pauses nothing while the link carries the lowest layer
      // whole: libwebrtc's REMB after a start's over-use sat at 48–67 kbit/s, under 160x90's
      // rate, on links carrying 160x90 and its audio (decision 0092). A falling estimate, or the
      // lowest layer's own loss, says the link does not carry it.
      const lowestDropped =
        constraints.estimateFalling === true ||
        (byEstimate !== undefined && byEstimate < PAUSE_AT_ONCE_SHARE * lowest.bitrate(now)) ||
        (current === lowest &&
          constraints.lossy === true &&
          constraints.loss !== undefined &&
          constraints.loss.at - this.chosenAt >= PAUSE_LOSS_AFTER_MS);
      const target =
        lower.find((layer) => fits(layer, room, now) && lineCarries(layer, constraints, now)) ??
        (byEstimate !== undefined &&
        byEstimate < PAUSE_SHARE * lowest.bitrate(now) &&
        constraints.firstEstimate !== true &&
        lowestDropped
          ? null
          : lowest);
      if (target === current) return current;
      this.fellBackFrom = undefined;
      this.left(current, now);
      return target;
    }
    this.overSince = undefined;
    const next = this.nextUp(arriving);
    if (next === undefined || this.waiting(next, now) || !lineCarries(next, constraints, now)) {
      this.roomSince = undefined;
      this.probe = undefined;
      return current;
    }
    if (maxBitrate < next.bitrate(now) * UP_MARGIN) {
      this.roomSince = undefined;
      return this.probeUp(current, next, maxBitrate, now, constraints);
    }
    this.probe = undefined;
    // Room in an estimate that is still falling is what the link carried before (just after a
    // drop, libwebrtc's REMB comes down over seconds): up only once it has not fallen for as long.
    this.roomSince ??= now;
    if (this.lastFallAt > this.roomSince) this.roomSince = this.lastFallAt;
    if (now - this.roomSince < UP_AFTER_MS) return current;
    this.roomSince = undefined;
    return (
      arriving.find(
        (layer) =>
          !this.waiting(layer, now) &&
          lineCarries(layer, constraints, now) &&
          maxBitrate >= layer.bitrate(now) * UP_MARGIN,
      ) ?? next
    );
  }

  /**
   * Short of the next layer by the estimate: a probe toward it once the estimate has been quiet
   * (and the current layer fits), up when the estimate rose under it and never fell, the layer
   * waiting as one left when the estimate falls during it, or holds still.
   */
  private probeUp(
    current: VideoLayer | null,
    next: VideoLayer,
    maxBitrate: number,
    now: number,
    constraints: LayerConstraints,
  ): VideoLayer | null {
    const { loss, estimateAt } = constraints;
    // The viewer's own estimate, not the probed rate standing in for it: whether it rose.
    const estimate = constraints.maxBitrate ?? 0;
    const probe = this.probe?.layer === next ? this.probe : undefined;
    if (probe === undefined) {
      this.probe = undefined;
      const quiet = now - this.lastFallAt >= PROBE_QUIET_MS;
      const probeWait = this.probeWaits.get(next) ?? -Infinity;
      // From the viewer's own estimate, not a probed rate standing in for it: the layer a probe
      // just moved the viewer to is not in it yet, and the next probe waits until it is, and
      // until the next layer is within `PROBE_REACH` of it.
      const carried = Math.min(maxBitrate, estimate);
      const withinReach =
        current === null || next.bitrate(now) * PROBE_MARGIN <= PROBE_REACH * carried;
      if (
        quiet &&
        probeWait <= now &&
        withinReach &&
        (current === null || fits(current, carried, now))
      ) {
        this.probe = { layer: next, since: now, estimate, roundTripMs: constraints.roundTripMs };
      }
      return current;
    }
    const lost = loss !== undefined && loss.at >= probe.since && loss.fraction > PROBE_LOSS;
    const { roundTripMs } = constraints;
    const queued =
      roundTripMs !== undefined &&
      probe.roundTripMs !== undefined &&
      roundTripMs > probe.roundTripMs + PROBE_QUEUE_MS;
    if (this.lastFallAt >= probe.since || lost || queued) {
      this.probe = undefined;
      this.probeFailed(next, now);
      return current;
    }
    if (now - probe.since < PROBE_WINDOW_MS) return current;
    this.probe = undefined;
    // The evidence is the estimate rising under the probe: libwebrtc's REMB climbs while what
    // arrives grows and nothing queues; on a link short of the probed rate it holds still or
    // falls (`PROBE_RISE`), so the absence of a fall is no evidence, nor is no REMB at all (a cut
    // link sends none).
    const sawEstimate = estimateAt === undefined || estimateAt >= probe.since;
    const rose = sawEstimate && estimate >= PROBE_RISE * probe.estimate;
    if (current !== null && !rose) {
      this.probeFailed(next, now);
      return current;
    }
    if (current === null && !rose) {
      // A paused viewer, sent no video, may send no REMB at all (no audio asked for): then its
      // probe is the resume itself. One whose REMBs kept coming (its audio flows) and held still
      // has a link still full of its audio, and the lowest layer on top of it would starve its
      // signalling of the pause's notice. Its probe is gentle (viewer-adaptation.ts): the next
      // starts at once.
      if (sawEstimate) return current;
    }
    // Standing in as the estimate, it lets the layer now chosen fit and the next be probed.
    this.probed = next.bitrate(now) * UP_MARGIN;
    return next;
  }

  /** `layer` was left for not fitting: it waits before it is tried again. */
  private left(layer: VideoLayer, now: number): void {
    const previous = this.retries.get(layer);
    const soon = previous !== undefined && now - this.chosenAt < RETRY_RESET_MS;
    const waitMs = soon ? Math.min(previous.waitMs * 2, MAX_RETRY_MS) : FIRST_RETRY_MS;
    this.retries.set(layer, { until: now + waitMs, waitMs });
  }

  /**
   * A probe toward `layer` failed: it is not probed again for the first retry time, not longer
   * each time (a failed probe cost the viewer a moment of queueing, not a freeze, and the link may
   * come back); the estimate alone may still move the viewer up to it.
   */
  private probeFailed(layer: VideoLayer, now: number): void {
    this.probeFailedAt = now;
    this.probeWaits.set(layer, now + FIRST_RETRY_MS);
  }

  private waiting(layer: VideoLayer, now: number): boolean {
    return (this.retries.get(layer)?.until ?? -Infinity) > now;
  }

  /** The layer above the chosen one (the lowest when paused), if one arrives. */
  private nextUp(arriving: VideoLayer[]): VideoLayer | undefined {
    if (this.chosen === null) return arriving.at(-1);
    if (this.chosen === undefined) return undefined;
    const index = arriving.indexOf(this.chosen);
    return index > 0 ? arriving[index - 1] : undefined;
  }
}
