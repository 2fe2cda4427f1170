/**
 * A recorded segment read from a byte on, for the live player's rewind (decision 0088): a finished
 * one whole, the one being written as far as it is written (decision 0085: the API serves it with
 * `Range: bytes=N-` and says in `Tailcam-Segment` whether the recorder has finished it; its bytes
 * never change once written, so a reader goes on from where it stopped).
 */
import { ApiError } from '@/lib/api-client';
import { authorizedFetch, spanPath } from './recordings';
import type { FeedSegment } from '../lib/rewind-timeline';

export interface SegmentBytes {
  bytes: ArrayBuffer;
  /** The segment is whole: nothing more will come after these bytes. */
  complete: boolean;
  /**
   * The bytes it grew by are gone (a WebM's `.part` is kept 15 s after its segment finished, and
   * the finished file is muxed apart): what was read of it must be read again, whole (410).
   */
  gone?: true;
}

export async function readSegment(
  stageId: string,
  segment: FeedSegment,
  fromByte: number,
  signal: AbortSignal,
): Promise<SegmentBytes> {
  const path: `/api/${string}` = `${spanPath(stageId, segment.span)}/${encodeURIComponent(segment.name)}`;
  if (segment.durationMs !== undefined) {
    const bytes = await (await authorizedFetch(path, signal)).arrayBuffer();
    return { bytes: fromByte > 0 ? bytes.slice(fromByte) : bytes, complete: true };
  }
  try {
    const response = await authorizedFetch(path, signal, { Range: `bytes=${fromByte}-` });
    const complete = response.headers.get('tailcam-segment') !== 'writing';
    const bytes = await response.arrayBuffer();
    // A server that ignores the range (200) sends it whole.
    const fresh = response.status === 200 && fromByte > 0 ? bytes.slice(fromByte) : bytes;
    return { bytes: fresh, complete };
  } catch (error) {
    // Nothing past what was read yet (416), or renamed as it was finished (404): nothing new;
    // the next list says whether it is whole (then read as a finished one, from the same byte).
    if (error instanceof ApiError && (error.status === 416 || error.status === 404)) {
      return { bytes: new ArrayBuffer(0), complete: false };
    }
    if (error instanceof ApiError && error.status === 410) {
      return { bytes: new ArrayBuffer(0), complete: false, gone: true };
    }
    throw error;
  }
}
