/**
 * `STAGE_PUBLISH_MAX_KBPS`: the most an aircraft's publisher may send, which the stage tells it
 * as REMB (congestion-feedback.ts). `1500` caps every aircraft; `N743AS=1500,N953AS=800` the
 * ones named; `1500,N953AS=800` every aircraft at 1500 but N953AS at 800. Unset: no cap.
 */
import { isStreamId, STREAM_IDS } from '@tailcam/protocol/streams';

export const PUBLISH_MAX_KBPS_RANGE = { min: 50, max: 100_000 } as const;

/** Each aircraft's cap in kbit/s, and the one for the aircraft not named. */
export interface PublishMaxKbps {
  readonly everyAircraft: number | undefined;
  readonly byAircraft: Readonly<Record<string, number>>;
}

/** The caps `value` sets, or what is wrong with it. */
export function parsePublishMaxKbps(value: string | undefined): PublishMaxKbps | string {
  const text = (value ?? '').trim();
  const caps: { everyAircraft: number | undefined; byAircraft: Record<string, number> } = {
    everyAircraft: undefined,
    byAircraft: {},
  };
  if (text === '') return caps;
  const { min, max } = PUBLISH_MAX_KBPS_RANGE;
  const wrong = (why: string) =>
    `STAGE_PUBLISH_MAX_KBPS must be kbit/s (${min}–${max}) for every aircraft, or tail=kbit/s ` +
    `pairs such as N743AS=1500,N953AS=800 (${why})`;
  for (const item of text.split(',').map((part) => part.trim())) {
    const match = /^(?:([A-Za-z0-9]+)\s*=\s*)?(\d+)$/.exec(item);
    if (!match?.[2]) return wrong(`'${item}' is neither`);
    const kbps = Number(match[2]);
    if (kbps < min || kbps > max) return wrong(`${kbps} is out of range`);
    const tail = match[1]?.toUpperCase();
    if (tail === undefined) {
      if (caps.everyAircraft !== undefined) return wrong('two caps for every aircraft');
      caps.everyAircraft = kbps;
    } else if (!isStreamId(tail)) {
      return wrong(`unknown aircraft ${tail}; the aircraft are ${STREAM_IDS.join(', ')}`);
    } else if (caps.byAircraft[tail] !== undefined) {
      return wrong(`${tail} named twice`);
    } else {
      caps.byAircraft[tail] = kbps;
    }
  }
  return caps;
}

/** `stageId`'s cap in bit/s, or undefined for none. */
export function publishMaxBitrate(
  caps: PublishMaxKbps | undefined,
  stageId: string,
): number | undefined {
  const kbps = caps?.byAircraft[stageId] ?? caps?.everyAircraft;
  return kbps === undefined ? undefined : kbps * 1000;
}
