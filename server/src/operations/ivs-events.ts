/**
 * The events Tailcam delivers to webhooks (decision 0098), in the shape of Amazon IVS's
 * EventBridge events so that one consumer serves both tiers: the local stage's participant events
 * as IVS's "IVS Stage Update" (source `aws.ivs`), and Tailcam's own off-air event (source
 * `tailcam`, which IVS has no word for). An event's id is derived from what it is about (the
 * stage's run and sequence number; the aircraft and the moment it went), so a redelivery after a
 * restart carries the same id and a consumer can drop it.
 */
import { createHash } from 'node:crypto';
import type { StageEvent, StageEventName } from '@tailcam/protocol/stage-control';

/** The local stage's account and region in its stage ARNs: no AWS account is involved. */
export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_REGION = 'local';
export const OFF_AIR_EVENT_NAME = 'Off Air';
export const OFF_AIR_DETAIL_TYPE = 'Tailcam Aircraft Off Air';

/** IVS's "IVS Stage Update", as EventBridge delivers it. */
export interface StageUpdateEvent {
  version: '0';
  id: string;
  'detail-type': 'IVS Stage Update';
  source: 'aws.ivs';
  account: string;
  /** ISO time, whole seconds, as EventBridge writes it. */
  time: string;
  region: string;
  /** The stage's ARN. */
  resources: [string];
  detail: {
    session_id: string;
    event_name: StageEventName;
    user_id: string;
    participant_id: string;
  };
}

/** Tailcam's own: the aircraft's publisher has been gone longer than the off-air grace. */
export interface OffAirEvent {
  version: '0';
  id: string;
  'detail-type': typeof OFF_AIR_DETAIL_TYPE;
  source: 'tailcam';
  account: string;
  time: string;
  region: string;
  resources: [string];
  detail: {
    event_name: typeof OFF_AIR_EVENT_NAME;
    aircraft: string;
    /** When its last publisher went (ISO, milliseconds): off air since then. */
    off_air_since: string;
    grace_seconds: number;
  };
}

export type DeliveredEvent = StageUpdateEvent | OffAirEvent;

/** The local stage's ARN for an aircraft, in IVS's pattern (`arn:aws:ivs:{region}:{account}:stage/{id}`). */
export function localStageArn(aircraft: string): string {
  return `arn:aws:ivs:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stage/${aircraft}`;
}

/** A UUID-shaped id, the same for the same `name`. */
export function eventId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  // Version 8 (custom) and the RFC 9562 variant: a UUID any parser takes.
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** EventBridge's time: ISO, whole seconds. */
export function eventBridgeTime(iso: string): string {
  return new Date(iso).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** IVS's session ids are `st-` and 13 letters and digits: one per aircraft per stage run. */
export function localSessionId(run: string, aircraft: string): string {
  const digest = createHash('sha256').update(`${run}:${aircraft}`).digest('base64url');
  return `st-${digest.replace(/[^A-Za-z0-9]/g, '').slice(0, 13)}`;
}

export function stageUpdateEvent(run: string, event: StageEvent): StageUpdateEvent {
  return {
    version: '0',
    id: eventId(`stage:${run}:${String(event.seq)}`),
    'detail-type': 'IVS Stage Update',
    source: 'aws.ivs',
    account: LOCAL_ACCOUNT,
    time: eventBridgeTime(event.time),
    region: LOCAL_REGION,
    resources: [localStageArn(event.stageId)],
    detail: {
      session_id: localSessionId(run, event.stageId),
      event_name: event.name,
      user_id: event.userId,
      participant_id: event.participantId,
    },
  };
}

export function offAirEvent(options: {
  aircraft: string;
  /** ISO: when its last publisher went. */
  since: string;
  /** ISO: now, when the grace ended. */
  time: string;
  graceSeconds: number;
}): OffAirEvent {
  return {
    version: '0',
    id: eventId(`off-air:${options.aircraft}:${options.since}`),
    'detail-type': OFF_AIR_DETAIL_TYPE,
    source: 'tailcam',
    account: LOCAL_ACCOUNT,
    time: eventBridgeTime(options.time),
    region: LOCAL_REGION,
    resources: [localStageArn(options.aircraft)],
    detail: {
      event_name: OFF_AIR_EVENT_NAME,
      aircraft: options.aircraft,
      off_air_since: options.since,
      grace_seconds: options.graceSeconds,
    },
  };
}
