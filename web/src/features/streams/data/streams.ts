import { STREAM_IDS } from '@tailcam/protocol/streams';

/** A stream in the selection grid (SPEC.md §3). */
export interface Stream {
  id: string;
  name: string;
  isLive: boolean;
  thumbnailUrl?: string;
}

/** The fixed, built-in list (SPEC.md §2): id equals name, none is marked live. */
export const BUILT_IN_STREAMS: readonly Stream[] = STREAM_IDS.map((id) => ({
  id,
  name: id,
  isLive: false,
}));
