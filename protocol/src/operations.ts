/**
 * `GET /api/operations`'s answer (docs/product.md#operations), written by the API
 * (server/src/operations) and read by the web app's Operations page: each aircraft's on-air
 * state, since when, its publisher's bitrate and its viewers, and the newest events, with a
 * version that a long poll waits on (decision 0099).
 */

/** One aircraft as an operator sees it. */
export interface AircraftOperations {
  /** The tail number, e.g. 'N743AS'. */
  aircraft: string;
  /** A publisher is sending video now (or went less than the off-air grace ago). */
  onAir: boolean;
  /** ISO time the current state (on or off air) began; null if unknown. */
  since: string | null;
  /** The publisher's video bits/s; null off air or not yet measured. */
  bitrate: number | null;
  /** Persons watching (not the recorder or the thumbnail process). */
  viewers: number;
}

/** An event as delivered to webhooks (the shape of IVS's "IVS Stage Update"), shortened. */
export interface OperationsEvent {
  /** The webhook event's id. */
  id: string;
  /** ISO time. */
  time: string;
  aircraft: string;
  /** The IVS event_name, e.g. 'Participant Published', or Tailcam's 'Off Air'. */
  name: string;
}

export interface OperationsSnapshot {
  version: number;
  aircraft: AircraftOperations[];
  /** The newest events, newest first. */
  events: OperationsEvent[];
}
