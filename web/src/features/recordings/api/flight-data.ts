/**
 * A recorded segment's flight data (`GET /api/recordings/{aircraft}/{span}/{offset}.flight`,
 * decision 0096): its bytes as they are now, or undefined for a segment whose frames carried none
 * (a 404). Read by the flight-data feature (docs/flight-data.md#in-the-recordings); here only
 * fetched.
 */
import { ApiError } from '@/lib/api-client';
import { authorizedFetch, segmentOffsetOf, spanPath, type RecordedSpan } from './recordings';

/** `{offset}.flight` of a segment named `{offset}-{duration}.{ext}` or `{offset}.part`. */
export function flightFileOf(segmentName: string): string | undefined {
  const offset = segmentOffsetOf(segmentName);
  return offset === undefined ? undefined : `${offset}.flight`;
}

export async function getFlightData(
  stageId: string,
  span: RecordedSpan,
  segmentName: string,
  signal?: AbortSignal,
): Promise<ArrayBuffer | undefined> {
  const name = flightFileOf(segmentName);
  if (name === undefined) return undefined;
  try {
    const path: `/api/${string}` = `${spanPath(stageId, span)}/${encodeURIComponent(name)}`;
    return await (await authorizedFetch(path, signal)).arrayBuffer();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}
