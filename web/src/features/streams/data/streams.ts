import { STREAM_IDS } from '@tailcam/protocol/streams';

/** A stream in the selection grid (docs/product.md#data). */
export interface Stream {
  id: string;
  name: string;
  isLive: boolean;
  thumbnailUrl?: string;
}

/** The fixed, built-in list (docs/product.md#stream-selection): id equals name, none is live. */
export const BUILT_IN_STREAMS: readonly Stream[] = STREAM_IDS.map((id) => ({
  id,
  name: id,
  isLive: false,
}));
