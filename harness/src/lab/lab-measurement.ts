/** What a measurement through the lab gives, and the line it is printed as beside results. */
import type { Host } from './lab-topology';

export type Figure = 'rtt' | 'loss' | 'rate';

/** What a path really gave; a figure not asked for is undefined. */
export interface Measurement {
  from: Host;
  to: Host;
  address: string;
  /** Mean ping round trip (undefined too when no ping came back). */
  rttMs?: number;
  pingsSent?: number;
  pingsReceived?: number;
  /** One-way loss of a paced UDP burst from `from` to `to`. */
  lossPercent?: number;
  udpSent?: number;
  udpReceived?: number;
  /** TCP goodput of a bounded transfer, in `direction` (down: `to` sends to `from`). */
  rateKbit?: number;
  direction: 'down' | 'up';
}

export interface MeasureOptions {
  /** The figures to take (all three). */
  figures?: Figure[];
  /** Bytes of the TCP transfer (256 KB). */
  bytes?: number;
  /** Datagrams of the UDP burst, 1,000 a second (400). */
  datagrams?: number;
  /** Pings, 20 ms apart (10). */
  pings?: number;
  direction?: 'down' | 'up';
}

/** A measurement in one line, with the conditions it was taken under. */
export function formatMeasurement(measurement: Measurement, conditions: string): string {
  const { from, to, address, rttMs, lossPercent, rateKbit } = measurement;
  const figures: string[] = [];
  if (measurement.pingsSent !== undefined) {
    figures.push(rttMs === undefined ? 'no ping came back' : `rtt ${rttMs.toFixed(1)} ms`);
  }
  if (lossPercent !== undefined) {
    const { udpReceived, udpSent } = measurement;
    figures.push(`loss ${lossPercent.toFixed(1)}% (${udpReceived}/${udpSent} UDP arrived)`);
  }
  if (rateKbit !== undefined) {
    figures.push(`${measurement.direction} ${Math.round(rateKbit)} kbit/s`);
  }
  return `[lab] ${from} → ${to} (${address}), ${conditions}: ${figures.join(', ')}`;
}
