/**
 * A recorded segment read from a byte on, for the live player's rewind (decision 0088): a finished
 * one whole, the one being written as far as it is written (decision 0085: the API serves it with
 * `Range: bytes=N-` and says in `Tailcam-Segment` whether the recorder has finished it; its bytes
 * never change once written, so a reader goes on from where it stopped).
 */
import { ApiError } from '@/lib/api-client';
import { authorizedFetch, segmentOffsetOf, spanPath } from './recordings';
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

/**
 * `{offset}.part`: the one URL of a segment from its first byte to its last, while it grows and
 * once it is finished (decision 0085).
 */
export function growingName(segmentName: string): string {
  const offset = segmentOffsetOf(segmentName);
  return offset === undefined ? segmentName : `${offset}.part`;
}

/**
 * A finished segment not read yet is read whole, by its own name. Any other is read from
 * `fromByte` on through its `.part` URL, finished or not: a reader that began it as it grew reads
 * the rest of the same bytes there, for a WebM's finished file is muxed apart and its bytes are
 * not those (appended on from the same byte, they break the picture).
 */
export async function readSegment(
  stageId: string,
  segment: FeedSegment,
  fromByte: number,
  signal: AbortSignal,
): Promise<SegmentBytes> {
  const span = spanPath(stageId, segment.span);
  if (segment.durationMs !== undefined && fromByte === 0) {
    const path: `/api/${string}` = `${span}/${encodeURIComponent(segment.name)}`;
    return { bytes: await (await authorizedFetch(path, signal)).arrayBuffer(), complete: true };
  }
  const path: `/api/${string}` = `${span}/${encodeURIComponent(growingName(segment.name))}`;
  try {
    const response = await authorizedFetch(path, signal, { Range: `bytes=${fromByte}-` }, [416]);
    const complete = response.headers.get('tailcam-segment') !== 'writing';
    // Nothing past what was read: not yet (writing), or ever (complete).
    if (response.status === 416) return { bytes: new ArrayBuffer(0), complete };
    const bytes = await response.arrayBuffer();
    // A server that ignores the range (200) sends it whole.
    const fresh = response.status === 200 && fromByte > 0 ? bytes.slice(fromByte) : bytes;
    return { bytes: fresh, complete };
  } catch (error) {
    // Not there (404: its span's index has not named it yet): nothing new; the next list says.
    if (error instanceof ApiError && error.status === 404) {
      return { bytes: new ArrayBuffer(0), complete: false };
    }
    if (error instanceof ApiError && error.status === 410) {
      return { bytes: new ArrayBuffer(0), complete: false, gone: true };
    }
    throw error;
  }
}
