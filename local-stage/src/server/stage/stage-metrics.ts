/**
 * The stage's figures in the Prometheus text format (docs/decisions/0097-metrics-endpoint.md),
 * read at each scrape from what the stage already counts: the publishers' key frames, PLIs and
 * NACKs, each viewer's forwarding (NACKs answered, bytes sent again), layer switches and pauses.
 * Nothing here counts a packet itself. The API's metrics endpoint fetches this text from the
 * loopback-only `GET /_control/metrics` and serves it with its own.
 *
 * Counts live in their publishers and subscriptions and vanish with them, so each counter is what
 * the gone ones had at their end (carried) plus what the live ones have now: it only grows. A
 * subscription hands over its counts as it closes; a publisher's are read at the scrape after it
 * went (so one that came and went between two scrapes is not counted).
 *
 * Labels: `aircraft` is one of the stage's configured tail numbers, `layer` a rank (1 the
 * highest, at most MAX_SIMULCAST_LAYERS) or `paused`, `codec` one of a fixed list. Never a
 * participant, user, subscription or address.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Publisher } from '../media/publisher/publisher';
import type { Subscription } from '../media/viewer/subscription';
import type { AircraftStage } from './aircraft-stage';
import { CarriedCounts } from './carried-counts';

/** The codecs the stage takes (codecs/), as the `codec` label says them; anything else `other`. */
const CODEC_LABELS: Readonly<Record<string, string>> = {
  'video/vp8': 'VP8',
  'video/h264': 'H264',
};

/** Join times' buckets, seconds: a viewer's connection comes up in 0.1–2 s, a slow one in 5–10. */
const JOIN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];

interface SubscriptionCounts {
  nacksReceived: number;
  retransmittedBytes: number;
  layerSwitches: number;
  videoPauses: number;
}
interface PublisherCounts {
  nacksSent: number;
  plis: number;
  keyFrames: number;
}

function subscriptionCounts(subscription: Subscription): SubscriptionCounts {
  const forwarding = subscription.videoForwarding;
  return {
    nacksReceived: forwarding?.nacks ?? 0,
    retransmittedBytes: forwarding?.retransmittedBytes ?? 0,
    layerSwitches: subscription.layerSwitches,
    videoPauses: subscription.videoDelivery.pauses,
  };
}

function publisherCounts(publisher: Publisher): PublisherCounts {
  return {
    nacksSent: publisher.nacks.nacks,
    plis: publisher.plisSent,
    keyFrames: publisher.keyFramesSeen,
  };
}

interface Totals {
  subscriptions: Map<string, SubscriptionCounts>;
  publishers: Map<string, PublisherCounts>;
}

export interface StageMetricsSources {
  stages: ReadonlyMap<string, AircraftStage>;
  /** Every open subscription: viewers', WHEP players', the recorder's and the thumbnails'. */
  subscriptions: ReadonlySet<Subscription>;
}

/** A counter whose value is set from counts kept elsewhere (it only grows: see the header). */
function setCounter(counter: Counter<'aircraft'>, aircraft: string, value: number): void {
  counter.inc({ aircraft }, value);
}

export class StageMetrics {
  readonly registry = new Registry();
  private readonly sources: StageMetricsSources;
  private readonly subscriptionTotals = new CarriedCounts<Subscription, SubscriptionCounts>(
    subscriptionCounts,
    () => ({ nacksReceived: 0, retransmittedBytes: 0, layerSwitches: 0, videoPauses: 0 }),
  );
  private readonly publisherTotals = new CarriedCounts<Publisher, PublisherCounts>(
    publisherCounts,
    () => ({ nacksSent: 0, plis: 0, keyFrames: 0 }),
  );
  /** Subscriptions whose join time is in the histogram. */
  private readonly joinObserved = new WeakSet<Subscription>();
  private readonly joinSeconds: Histogram<'aircraft'>;
  private scrapeTotals: Totals | undefined;

  constructor(sources: StageMetricsSources) {
    this.sources = sources;
    const registers = [this.registry];
    const aircraftIds = [...sources.stages.keys()];
    const perAircraft = (read: (stage: AircraftStage) => number) =>
      function (this: Gauge<'aircraft'>) {
        for (const aircraft of aircraftIds) {
          const stage = sources.stages.get(aircraft);
          if (stage) this.set({ aircraft }, read(stage));
        }
      };

    new Gauge({
      name: 'tailcam_aircraft_on_air',
      help: 'Whether a publisher (a real encoder or the synthetic camera) sends this aircraft video now (1) or not (0).',
      labelNames: ['aircraft'],
      registers,
      collect: perAircraft((stage) => (stage.shown?.publisher.video ? 1 : 0)),
    });
    const viewersOf = (aircraft: string) => this.personViewers(aircraft);
    const totalsNow = () => this.totalsNow();
    new Gauge({
      name: 'tailcam_aircraft_publisher_info',
      help: 'The publisher on air: its source (encoder or camera) and video codec; always 1, absent off air.',
      labelNames: ['aircraft', 'source', 'codec'],
      registers,
      collect() {
        this.reset();
        for (const [aircraft, stage] of sources.stages) {
          const publisher = stage.shown?.publisher;
          if (!publisher?.video) continue;
          const codec = CODEC_LABELS[publisher.video.mimeType.toLowerCase()] ?? 'other';
          this.set({ aircraft, source: publisher.kind, codec }, 1);
        }
      },
    });
    new Gauge({
      name: 'tailcam_aircraft_video_bitrate_bits_per_second',
      help: "The publisher's video, every layer together, over the last 2 s (payload bits a second); 0 off air.",
      labelNames: ['aircraft'],
      registers,
      collect: perAircraft((stage) => {
        const now = performance.now();
        let bits = 0;
        for (const layer of stage.shown?.publisher.layers.all ?? []) bits += layer.bitrate(now);
        return Math.round(bits);
      }),
    });
    new Gauge({
      name: 'tailcam_aircraft_video_frames_per_second',
      help: "The frame rate of the publisher's highest layer arriving, over the last 2 s; 0 off air.",
      labelNames: ['aircraft'],
      registers,
      collect: perAircraft((stage) => {
        const layers = stage.shown?.publisher.layers.all ?? [];
        const now = performance.now();
        return Math.max(0, ...layers.map((layer) => layer.figures(now).frameRate));
      }),
    });
    new Gauge({
      name: 'tailcam_aircraft_viewers',
      help: "Persons receiving the aircraft's video now, their connection up (not the recorder, not the thumbnails).",
      labelNames: ['aircraft'],
      registers,
      collect: perAircraft((stage) => viewersOf(stage.stageId).length),
    });
    new Gauge({
      name: 'tailcam_aircraft_viewers_by_layer',
      help: "Persons receiving the aircraft's video by the layer they get: its rank (1 the highest), or paused for a slow link.",
      labelNames: ['aircraft', 'layer'],
      registers,
      collect() {
        this.reset();
        for (const aircraft of aircraftIds) {
          for (const viewer of viewersOf(aircraft)) {
            const rank = viewer.forwardedLayerRank;
            const layer = viewer.videoDelivery.paused ? 'paused' : String(rank ?? 1);
            this.inc({ aircraft, layer });
          }
        }
      },
    });
    new Gauge({
      name: 'tailcam_stage_sessions',
      help: "Open sessions on the aircraft's stage: viewers (persons), pages on standby (decision 0112), services (the recorder, the thumbnails) and publishers.",
      labelNames: ['aircraft', 'role'],
      registers,
      collect() {
        for (const [aircraft, stage] of sources.stages) {
          let viewers = 0;
          let standby = 0;
          let services = 0;
          for (const subscription of sources.subscriptions) {
            if (subscription.stageId !== aircraft || !subscription.isOpen) continue;
            if (subscription.person) viewers += 1;
            else if (subscription.onStandby) standby += 1;
            else services += 1;
          }
          this.set({ aircraft, role: 'viewer' }, viewers);
          this.set({ aircraft, role: 'standby' }, standby);
          this.set({ aircraft, role: 'service' }, services);
          this.set({ aircraft, role: 'publisher' }, stage.publishers.size);
        }
      },
    });
    new Gauge({
      name: 'tailcam_stage_paused_viewers',
      help: 'Viewers whose video is paused now because their link carries less than the lowest layer.',
      labelNames: ['aircraft'],
      registers,
      collect: perAircraft(
        (stage) => viewersOf(stage.stageId).filter((viewer) => viewer.videoDelivery.paused).length,
      ),
    });
    this.joinSeconds = new Histogram({
      name: 'tailcam_stage_join_seconds',
      help: "A viewer's video subscription, from its request until its connection is up.",
      labelNames: ['aircraft'],
      buckets: JOIN_BUCKETS,
      registers,
      collect: () => this.observeJoins(),
    });

    /** A counter per aircraft, read from the totals at each scrape. */
    const totalCounter = (
      name: string,
      help: string,
      count: (totals: Totals, aircraft: string) => number,
    ): Counter<'aircraft'> =>
      new Counter({
        name,
        help,
        labelNames: ['aircraft'],
        registers,
        collect() {
          this.reset();
          const totals = totalsNow();
          for (const aircraft of aircraftIds) setCounter(this, aircraft, count(totals, aircraft));
        },
      });
    const subscriptionCounter = (name: string, help: string, field: keyof SubscriptionCounts) =>
      totalCounter(
        name,
        help,
        (totals, aircraft) => totals.subscriptions.get(aircraft)?.[field] ?? 0,
      );
    const publisherCounter = (name: string, help: string, field: keyof PublisherCounts) =>
      totalCounter(name, help, (totals, aircraft) => totals.publishers.get(aircraft)?.[field] ?? 0);
    publisherCounter(
      'tailcam_stage_nacks_sent_total',
      "NACK messages the stage sent the aircraft's publishers for their lost video packets.",
      'nacksSent',
    );
    subscriptionCounter(
      'tailcam_stage_nacks_received_total',
      "NACK messages the aircraft's viewers sent the stage.",
      'nacksReceived',
    );
    publisherCounter(
      'tailcam_stage_plis_total',
      "PLIs (key frame requests) the stage sent the aircraft's publishers.",
      'plis',
    );
    publisherCounter(
      'tailcam_stage_key_frames_total',
      "Key frames the aircraft's publishers sent (each layer's).",
      'keyFrames',
    );
    subscriptionCounter(
      'tailcam_stage_retransmitted_bytes_total',
      "Payload bytes the stage sent the aircraft's viewers again for their NACKs.",
      'retransmittedBytes',
    );
    subscriptionCounter(
      'tailcam_stage_layer_switches_total',
      "Times a viewer's video moved to another layer.",
      'layerSwitches',
    );
    subscriptionCounter(
      'tailcam_stage_video_pauses_total',
      "Times a viewer's video was paused because its link carried less than the lowest layer.",
      'videoPauses',
    );
  }

  /** The Prometheus text of every figure (the counters' sources read once for all of them). */
  async text(): Promise<string> {
    this.scrapeTotals = this.readTotals();
    try {
      return await this.registry.metrics();
    } finally {
      this.scrapeTotals = undefined;
    }
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** A subscription closed: its counts are carried, its join observed if it never was. */
  subscriptionClosed(subscription: Subscription): void {
    this.observeJoin(subscription);
    this.subscriptionTotals.ended(subscription, subscription.stageId);
  }

  private personViewers(aircraft: string): Subscription[] {
    const viewers: Subscription[] = [];
    for (const subscription of this.sources.subscriptions) {
      if (
        subscription.stageId === aircraft &&
        subscription.isOpen &&
        subscription.connectedAt !== undefined &&
        subscription.person &&
        subscription.media.video
      ) {
        viewers.push(subscription);
      }
    }
    return viewers;
  }

  private observeJoins(): void {
    for (const subscription of this.sources.subscriptions) this.observeJoin(subscription);
  }

  private observeJoin(subscription: Subscription): void {
    if (!subscription.person || subscription.connectedAt === undefined) return;
    if (this.joinObserved.has(subscription)) return;
    this.joinObserved.add(subscription);
    if (!this.sources.stages.has(subscription.stageId)) return;
    this.joinSeconds.observe(
      { aircraft: subscription.stageId },
      (subscription.connectedAt - subscription.requestedAt) / 1000,
    );
  }

  /** The counters' totals: the ones `text()` read, else read now. */
  private totalsNow(): Totals {
    return this.scrapeTotals ?? this.readTotals();
  }

  private readTotals(): Totals {
    return { subscriptions: this.readSubscriptionTotals(), publishers: this.readPublisherTotals() };
  }

  private readSubscriptionTotals(): Map<string, SubscriptionCounts> {
    const live: [Subscription, string][] = [];
    for (const subscription of this.sources.subscriptions) {
      if (this.sources.stages.has(subscription.stageId)) {
        live.push([subscription, subscription.stageId]);
      }
    }
    return this.subscriptionTotals.totals(live);
  }

  private readPublisherTotals(): Map<string, PublisherCounts> {
    const live: [Publisher, string][] = [];
    for (const [aircraft, stage] of this.sources.stages) {
      for (const publisher of stage.publishers.values()) live.push([publisher, aircraft]);
    }
    return this.publisherTotals.totals(live);
  }
}
