/**
 * The recordings the API lists (GET /api/recordings, docs/product.md#recordings), and a segment or
 * a download fetched with the login token: a recording is for signed-in users only.
 */
import { ApiError } from '@/lib/api-client';
import { apiUrl } from '@/lib/api-url';
import { getAuthToken } from '@/lib/auth-token';

export interface RecordedSegment {
  name: string;
  offsetMs: number;
  durationMs: number;
  /** A JPEG of the segment's first picture, beside it (`/api/recordings/{aircraft}/{span}/{preview}`). */
  preview?: string;
}

export interface RecordedSpan {
  span: string;
  startMs: number;
  endMs: number;
  publisher: string;
  mimeType: string;
  segments: RecordedSegment[];
  /** With Amazon IVS: the span's HLS playlist on the API (its segments are presigned S3 URLs). */
  hls?: `/api/${string}`;
  /** With Amazon IVS: still being recorded; its end is when the API looked, its playlist grows. */
  inProgress?: true;
}

/** The segment the recorder is writing now (decision 0085): served as it grows. */
export interface WritingSegment {
  span: string;
  name: string;
  offsetMs: number;
  startMs: number;
  /** Absent from an API that does not say: the span's own, or its aircraft's last span's. */
  mimeType?: string;
}

export interface AircraftRecordings {
  stageId: string;
  spans: RecordedSpan[];
  writing?: WritingSegment;
}

export interface Recordings {
  aircraft: AircraftRecordings[];
}

// Checked by hand, as every answer the browser reads: no schema library in the web app (decisions
// 0002, amended, and 0060).
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;
const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number';

function isSpan(value: unknown): value is RecordedSpan {
  return (
    isObject(value) &&
    isString(value.span) &&
    isNumber(value.startMs) &&
    isNumber(value.endMs) &&
    isString(value.publisher) &&
    isString(value.mimeType) &&
    (value.hls === undefined || (isString(value.hls) && value.hls.startsWith('/api/'))) &&
    (value.inProgress === undefined || value.inProgress === true) &&
    Array.isArray(value.segments) &&
    value.segments.every(
      (segment) =>
        isObject(segment) &&
        isString(segment.name) &&
        isNumber(segment.offsetMs) &&
        isNumber(segment.durationMs) &&
        (segment.preview === undefined || isString(segment.preview)),
    )
  );
}

function isRecordings(value: unknown): value is Recordings {
  return (
    isObject(value) &&
    Array.isArray(value.aircraft) &&
    value.aircraft.every(
      (entry) =>
        isObject(entry) &&
        isString(entry.stageId) &&
        Array.isArray(entry.spans) &&
        entry.spans.every(isSpan) &&
        (entry.writing === undefined || isWriting(entry.writing)),
    )
  );
}

function isWriting(value: unknown): value is WritingSegment {
  return (
    isObject(value) &&
    isString(value.span) &&
    isString(value.name) &&
    isNumber(value.offsetMs) &&
    isNumber(value.startMs) &&
    (value.mimeType === undefined || isString(value.mimeType))
  );
}

/** The offset (ten digits) a segment's file is named by: `{offset}-{duration}.{ext}` or `{offset}.part`. */
export function segmentOffsetOf(segmentName: string): string | undefined {
  return /^(\d{10})(?:-\d{1,9}\.(?:webm|mp4)|\.part)$/.exec(segmentName)?.[1];
}

export async function authorizedFetch(
  path: `/api/${string}`,
  signal?: AbortSignal,
  headers: Record<string, string> = {},
  /** Statuses that are answers here, not failures (a ranged read's 416). */
  answers: readonly number[] = [],
): Promise<Response> {
  const response = await fetch(apiUrl(path), {
    headers: { ...headers, Authorization: `Bearer ${getAuthToken() ?? ''}` },
    signal,
  });
  if (!response.ok && !answers.includes(response.status))
    throw new ApiError(`${path} answered ${response.status}`, response.status, undefined);
  return response;
}

/**
 * Every aircraft's recordings, or (`stageId`) one aircraft's; with `sinceMs`, only what ends after
 * it (the live player's rewind reads its last hour, not the day).
 */
export async function getRecordings(
  signal?: AbortSignal,
  stageId?: string,
  sinceMs?: number,
): Promise<Recordings> {
  const query = new URLSearchParams();
  if (stageId !== undefined) query.set('stage', stageId);
  if (sinceMs !== undefined) query.set('since', String(Math.floor(sinceMs)));
  const path: `/api/${string}` = query.size === 0 ? '/api/recordings' : `/api/recordings?${query}`;
  const answer: unknown = await (await authorizedFetch(path, signal)).json();
  if (!isRecordings(answer))
    throw new ApiError('/api/recordings answered an unexpected body', 200, undefined);
  return answer;
}

export function spanPath(stageId: string, span: RecordedSpan): `/api/${string}` {
  return `/api/recordings/${encodeURIComponent(stageId)}/${encodeURIComponent(span.span)}`;
}

export async function getSegment(
  stageId: string,
  span: RecordedSpan,
  name: string,
  signal?: AbortSignal,
): Promise<ArrayBuffer> {
  const path: `/api/${string}` = `${spanPath(stageId, span)}/${encodeURIComponent(name)}`;
  return (await authorizedFetch(path, signal)).arrayBuffer();
}

/** A segment's preview picture (a JPEG), fetched with the login token: an `<img>` cannot send it. */
export async function getPreview(
  stageId: string,
  span: RecordedSpan,
  preview: string,
  signal?: AbortSignal,
): Promise<Blob> {
  const path: `/api/${string}` = `${spanPath(stageId, span)}/${encodeURIComponent(preview)}`;
  return (await authorizedFetch(path, signal)).blob();
}

/** A download refused for now (429): too many at once for the account or the server. */
export class DownloadBusy extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`download refused; retry after ${retryAfterSeconds} s`);
    this.name = 'DownloadBusy';
  }
}

/** What a 429 says to wait, in whole seconds (at least 1; 10 when it says nothing usable). */
function retryAfterSeconds(header: string | null): number {
  const seconds = Number(header);
  return Number.isInteger(seconds) && seconds >= 1 ? seconds : 10;
}

/** The span (its last hour at most) as one file: `downloadRecording` of that stretch. */
export function downloadSpan(
  stageId: string,
  span: RecordedSpan,
  onProgress: (receivedBytes: number) => void = () => undefined,
): Promise<void> {
  const fromMs = Math.max(span.startMs, span.endMs - 3_600_000);
  return downloadRecording(stageId, span, { fromMs, toMs: span.endMs }, onProgress);
}

/**
 * A stretch of a span (Unix ms, at most an hour: the API refuses more) as one file, saved by the
 * browser. The file holds every segment the stretch touches, whole. The API remuxes it as it
 * sends it, so `onProgress` hears the bytes received so far while it is being prepared.
 */
export async function downloadRecording(
  stageId: string,
  span: RecordedSpan,
  { fromMs, toMs }: { fromMs: number; toMs: number },
  onProgress: (receivedBytes: number) => void = () => undefined,
): Promise<void> {
  const path: `/api/${string}` = `${spanPath(stageId, span)}/download?from=${Math.floor(fromMs)}&to=${Math.ceil(toMs)}`;
  const response = await fetch(apiUrl(path), {
    headers: { Authorization: `Bearer ${getAuthToken() ?? ''}` },
  });
  if (response.status === 429) {
    throw new DownloadBusy(retryAfterSeconds(response.headers.get('retry-after')));
  }
  if (!response.ok) {
    throw new ApiError(`${path} answered ${response.status}`, response.status, undefined);
  }
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let received = 0;
  const reader = response.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.byteLength;
    onProgress(received);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  const type = span.mimeType.includes('mp4') ? 'video/mp4' : 'video/webm';
  const url = URL.createObjectURL(new Blob(chunks, { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name ?? `${stageId}.${type === 'video/mp4' ? 'mp4' : 'webm'}`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** `09:30:05` in UTC. */
export function utcTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}
