/**
 * Sums of counts kept by objects that come and go (publishers, subscriptions), per aircraft, that
 * only grow: what the ended ones had at their end plus what the live ones have now
 * (stage-metrics.ts; docs/decisions/0097-metrics-endpoint.md).
 */

function add<T extends object>(into: T, counts: T): void {
  const target = into as Record<string, number>;
  for (const [name, value] of Object.entries(counts) as [string, number][]) {
    target[name] = (target[name] ?? 0) + value;
  }
}

/**
 * Sums of counts kept by objects that come and go, per aircraft: what the gone ones had at their
 * end plus what the live ones have now. Holds only the objects live at the last reading.
 */
export class CarriedCounts<Source extends object, Counts extends object> {
  private readonly carried = new Map<string, Counts>();
  /** The sources live at the last reading, with their aircraft. */
  private seen = new Map<Source, string>();
  private readonly endedSources = new WeakSet<Source>();

  constructor(
    private readonly read: (source: Source) => Counts,
    private readonly zero: () => Counts,
  ) {}

  /** A source ends: its counts so far are kept (once, however often it is told). */
  ended(source: Source, aircraft: string): void {
    if (this.endedSources.has(source)) return;
    this.endedSources.add(source);
    this.seen.delete(source);
    let carried = this.carried.get(aircraft);
    if (carried === undefined) {
      carried = this.zero();
      this.carried.set(aircraft, carried);
    }
    add(carried, this.read(source));
  }

  /** The totals now, per aircraft, given the live sources and the aircraft of each. */
  totals(live: Iterable<[Source, string]>): Map<string, Counts> {
    const now = new Map<Source, string>();
    for (const [source, aircraft] of live) {
      if (!this.endedSources.has(source)) now.set(source, aircraft);
    }
    for (const [source, aircraft] of this.seen) {
      if (!now.has(source)) this.ended(source, aircraft);
    }
    this.seen = now;
    const totals = new Map<string, Counts>();
    const totalFor = (aircraft: string) => {
      let total = totals.get(aircraft);
      if (total === undefined) {
        total = this.zero();
        totals.set(aircraft, total);
      }
      return total;
    };
    for (const [aircraft, counts] of this.carried) add(totalFor(aircraft), counts);
    for (const [source, aircraft] of now) add(totalFor(aircraft), this.read(source));
    return totals;
  }
}
