/** The fixed, built-in list of aircraft streams (docs/product.md#constants). The id is the tail number. */
export const STREAM_IDS = ['N743AS', 'N953AS', 'N954AS'] as const;

export type StreamId = (typeof STREAM_IDS)[number];

export function isStreamId(value: string): value is StreamId {
  return (STREAM_IDS as readonly string[]).includes(value);
}
