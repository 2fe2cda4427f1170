/**
 * `GET /api/operations` (docs/product.md#operations): each aircraft's on-air state, since when,
 * bitrate and viewers, and the newest events, for signed-in users. With `after`, a long poll: the
 * API answers once its version is past it, or after 20 s with the same one (decision 0099).
 */
import { ApiError } from '@/lib/api-client';
import { apiUrl } from '@/lib/api-url';
import { getAuthToken } from '@/lib/auth-token';

import type {
  AircraftOperations,
  OperationsEvent,
  OperationsSnapshot,
} from '@tailcam/protocol/operations';

export type { AircraftOperations, OperationsEvent, OperationsSnapshot };

/** A refusal to wait on for a while (429), with the API's `Retry-After` in seconds. */
export class OperationsBusy extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super('/api/operations answered 429', 429, undefined);
  }
}

// Checked by hand, as every answer the browser reads: no schema library in the web app (decisions
// 0002, amended, and 0060).
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;
const isString = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

function isAircraft(value: unknown): value is AircraftOperations {
  return (
    isObject(value) &&
    isString(value.aircraft) &&
    typeof value.onAir === 'boolean' &&
    (value.since === null || (isString(value.since) && !Number.isNaN(Date.parse(value.since)))) &&
    (value.bitrate === null || (typeof value.bitrate === 'number' && value.bitrate >= 0)) &&
    isCount(value.viewers)
  );
}

function isEvent(value: unknown): value is OperationsEvent {
  return (
    isObject(value) &&
    isString(value.id) &&
    isString(value.time) &&
    !Number.isNaN(Date.parse(value.time)) &&
    isString(value.aircraft) &&
    isString(value.name)
  );
}

export function isOperationsSnapshot(value: unknown): value is OperationsSnapshot {
  return (
    isObject(value) &&
    isCount(value.version) &&
    Array.isArray(value.aircraft) &&
    value.aircraft.every(isAircraft) &&
    Array.isArray(value.events) &&
    value.events.every(isEvent)
  );
}

/** The state now, or (`after`) once it is past that version; an `ApiError` for any failure. */
export async function getOperations(
  after: number | undefined,
  signal?: AbortSignal,
): Promise<OperationsSnapshot> {
  const path: `/api/${string}` =
    after === undefined ? '/api/operations' : `/api/operations?after=${after}`;
  let response: Response;
  try {
    response = await fetch(apiUrl(path), {
      headers: { Authorization: `Bearer ${getAuthToken() ?? ''}` },
      signal,
    });
  } catch (error) {
    signal?.throwIfAborted();
    throw new ApiError(`${path} could not be reached`, undefined, undefined, { cause: error });
  }
  if (response.status === 429) {
    const seconds = Number(response.headers.get('retry-after'));
    throw new OperationsBusy(Number.isInteger(seconds) && seconds > 0 ? seconds : 10);
  }
  if (!response.ok)
    throw new ApiError(`${path} answered ${response.status}`, response.status, undefined);
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    signal?.throwIfAborted();
    throw new ApiError(`${path} answered no JSON`, response.status, undefined, { cause: error });
  }
  if (!isOperationsSnapshot(body)) {
    throw new ApiError(`${path} answered an unexpected body`, response.status, undefined);
  }
  return body;
}
