/**
 * The local stage's recordings for signed-in users (layout: protocol/src/recordings.ts,
 * docs/decisions/0072-recorder.md):
 *   GET /api/recordings[?stage=][&since=]                the recorded spans per aircraft (UTC), and
 *                                                        the segment being written (`writing`);
 *                                                        `since` (Unix ms): what ends after it
 *   GET /api/recordings/{STAGE}/{SPAN}/{SEGMENT}         one segment (WebM or fMP4), as MSE takes it
 *   GET /api/recordings/{STAGE}/{SPAN}/{PREVIEW}         a segment's first picture, a JPEG ~160 px
 *       wide (`{offset}-{duration}.jpg`, the list's `preview`; decision 0084)
 *   GET /api/recordings/{STAGE}/{SPAN}/{offsetMs}.part   the segment starting there as it is now,
 *       growing or finished (`Range: bytes=N-`, `Tailcam-Segment: writing|complete`; decision 0085)
 *   GET /api/recordings/{STAGE}/{SPAN}/{offsetMs}.flight the flight data of the segment starting
 *       there, as it is now (binary records, docs/flight-data.md; decision 0096); 404 when it has none
 *   GET /api/recordings/{STAGE}/{SPAN}/download?from=&to= a stretch of a span as one file (remuxed)
 * Each needs a login token (Authorization: Bearer); answers are `Cache-Control: private`. Path
 * parts are checked against the layout's own names before any file is touched, so nothing outside
 * the recordings directory can be named; a bad one is a 400 saying which.
 * With IVS (STAGE_PROVIDER=ivs and IVS_RECORDINGS_BUCKET) the list is of IVS's recordings on S3, in
 * the same shape, each with `hls`, and:
 *   GET /api/recordings/ivs/{STAGE}/{SESSION}/{PARTICIPANT}/{PLAYLIST}.m3u8  a playlist whose
 *       segments are S3 presigned URLs (recordings/ivs-recordings.ts)
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStreamId, type StreamId } from '@tailcam/protocol/streams';
import {
  parseFlightFileName,
  parsePartFileName,
  parsePreviewFileName,
  parseSegmentFileName,
  parseSpanName,
  SEGMENT_NAME_HEADER,
  SEGMENT_STATE_HEADER,
  segmentMimeType,
  spanName,
} from '@tailcam/protocol/recordings';
import type { StoredSegment, StoredSpan } from '@tailcam/protocol/recordings-store';
import type { LoginTokens } from '../auth/login-token';
import { signedInViewer } from '../auth/signed-in-viewer';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import { countForAccount, type RateLimitRule, type RateLimiter } from '../http/rate-limit';
import { DownloadSlots } from '../recordings/download-slots';
import { BadRecordingPath, type IvsRecordings } from '../recordings/ivs-recordings';
import { LocalRecordingsIndex } from '../recordings/local-recordings-index';
import { RemuxStream, type DownloadOutcome } from '../recordings/remux-stream';
import { sendFlightData } from '../recordings/flight-data-file';
import { findWritingSegment, parseByteRange, readSegmentAt } from '../recordings/writing-segment';

/** Segments closer than this make one span on the page (a key frame's wait, a jitter). */
const CONTIGUOUS_MS = 1_000;
/** The longest stretch one download remuxes. */
const MAX_DOWNLOAD_MS = 60 * 60 * 1000;
/**
 * A download whose reader takes nothing for this long is ended (its worker and slot freed): far
 * longer than any pause of a browser saving a file, far shorter than holding a slot for ever.
 */
export const DOWNLOAD_STALL_MS = 30_000;
/**
 * What a 429 for a download says to wait: downloads take seconds (an hour of recording, ~13 s on
 * two cores: docs/benchmarks.md), so a slot is likely free by then.
 */
export const DOWNLOAD_RETRY_AFTER_SECONDS = 10;

export interface RecordedSpan {
  /** Its span directory: the segment and download URLs' second part. */
  span: string;
  start: string;
  end: string;
  startMs: number;
  endMs: number;
  publisher: 'camera' | 'encoder';
  /** `video/webm; codecs="vp8,opus"` or `video/mp4; codecs="avc1.42c015"`. */
  mimeType: string;
  /** In time order; `offsetMs` from `startMs` of this span. */
  segments: {
    name: string;
    offsetMs: number;
    durationMs: number;
    /** Its preview picture's name (`{offset}-{duration}.jpg`), when it has one (decision 0084). */
    preview?: string;
  }[];
}

/** A span directory's segments as runs without gaps: what the page lists as spans. */
export function contiguousSpans(stored: StoredSpan): RecordedSpan[] {
  const meta = stored.meta;
  if (!meta) return [];
  const runs: StoredSegment[][] = [];
  for (const segment of stored.segments) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    if (run && last && segment.startMs - last.endMs < CONTIGUOUS_MS) run.push(segment);
    else runs.push([segment]);
  }
  return runs.map((run) => {
    const startMs = run[0]!.startMs;
    const endMs = run.at(-1)!.endMs;
    return {
      span: spanName(stored.startMs),
      start: new Date(startMs).toISOString(),
      end: new Date(endMs).toISOString(),
      startMs,
      endMs,
      publisher: meta.publisher,
      mimeType: segmentMimeType(meta.container, meta.codecs),
      segments: run.map((segment) => ({
        name: segment.name,
        offsetMs: segment.startMs - startMs,
        durationMs: segment.durationMs,
        ...(segment.preview === undefined ? {} : { preview: segment.preview }),
      })),
    };
  });
}

/**
 * A run's segments that end after `sinceMs`, as a run of its own (its start its first kept
 * segment's, the offsets from there); undefined when none does. `?since=` lists the last hour for
 * the live player's rewind (decision 0088) without the rest of the day.
 */
export function endingAfter(run: RecordedSpan, sinceMs: number): RecordedSpan | undefined {
  if (run.endMs <= sinceMs) return undefined;
  const kept = run.segments.filter(
    (segment) => run.startMs + segment.offsetMs + segment.durationMs > sinceMs,
  );
  const first = kept[0];
  if (!first || kept.length === run.segments.length) return first ? run : undefined;
  const startMs = run.startMs + first.offsetMs;
  return {
    ...run,
    start: new Date(startMs).toISOString(),
    startMs,
    segments: kept.map((segment) => ({ ...segment, offsetMs: segment.offsetMs - first.offsetMs })),
  };
}

function checkedStage(stageId: string): StreamId {
  if (!isStreamId(stageId)) throw new HttpError(400, `Unknown aircraft: ${stageId.slice(0, 64)}`);
  return stageId;
}

function checkedSpan(span: string): string {
  if (parseSpanName(span) === undefined) {
    throw new HttpError(400, 'A span is named by its start: 13 digits (Unix milliseconds)');
  }
  return span;
}

function checkedTime(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value)) {
    throw new HttpError(400, `${name} must be a time in Unix milliseconds (UTC)`);
  }
  return Number(value);
}

export function registerRecordingRoutes(
  app: FastifyInstance,
  deps: {
    store: UserStore;
    loginTokens: LoginTokens;
    recordingsDir: string | undefined;
    ivs?: IvsRecordings | undefined;
    rateLimiter: RateLimiter;
    limits: { downloadsPerAccount: number; downloadsMax: number; listPerMinute: number };
    /** Tests shorten it; DOWNLOAD_STALL_MS otherwise. */
    downloadStallMs?: number;
  },
): void {
  const signedIn = async (request: FastifyRequest) => {
    request.user = await signedInViewer(request, deps);
  };
  const root = deps.recordingsDir;
  const index = root === undefined ? undefined : new LocalRecordingsIndex(root);
  const slots = new DownloadSlots({
    perAccount: deps.limits.downloadsPerAccount,
    total: deps.limits.downloadsMax,
  });
  const listRule: RateLimitRule = {
    name: 'recordings-list-user',
    max: deps.limits.listPerMinute,
    windowMs: 60_000,
  };
  const stallMs = deps.downloadStallMs ?? DOWNLOAD_STALL_MS;
  const runsOf = new WeakMap<StoredSegment[], RecordedSpan[]>();
  const signedInAndCounted = async (request: FastifyRequest) => {
    const user = await signedInViewer(request, deps);
    request.user = user;
    await countForAccount(deps.rateLimiter, listRule, request, user.id, 'recording lists');
  };

  const ivs = deps.ivs;
  app.get<{ Querystring: { stage?: string; since?: string } }>(
    '/api/recordings',
    { onRequest: signedInAndCounted },
    async (request) => {
      const only =
        request.query.stage === undefined ? undefined : checkedStage(request.query.stage);
      const sinceMs = checkedTime(request.query.since, 'since');
      if (ivs) {
        const aircraft = await ivs.list();
        return {
          aircraft: aircraft
            .filter((entry) => only === undefined || entry.stageId === only)
            .map((entry) => ({
              ...entry,
              spans: entry.spans.filter((span) => sinceMs === undefined || span.endMs > sinceMs),
            })),
        };
      }
      const spans = index === undefined ? [] : await index.read(only);
      const aircraft = await listed(spans);
      if (sinceMs === undefined) return { aircraft };
      return {
        aircraft: aircraft.map((entry) => ({
          ...entry,
          spans: entry.spans.flatMap((run) => endingAfter(run, sinceMs) ?? []),
        })),
      };
    },
  );

  /** Each aircraft's runs of finished segments, and the segment being written (decision 0085). */
  const listed = async (spans: StoredSpan[]) => {
    const byAircraft = new Map<string, RecordedSpan[]>();
    const spansOf = new Map<string, StoredSpan[]>();
    for (const stored of spans) {
      if (!isStreamId(stored.stageId)) continue;
      const list = byAircraft.get(stored.stageId) ?? [];
      // An indexed span's segments are the same array until its index changes: its runs too.
      let runs = runsOf.get(stored.segments);
      if (!runs) {
        runs = contiguousSpans(stored);
        runsOf.set(stored.segments, runs);
      }
      list.push(...runs);
      byAircraft.set(stored.stageId, list);
      spansOf.set(stored.stageId, [...(spansOf.get(stored.stageId) ?? []), stored]);
    }
    return Promise.all(
      [...byAircraft].map(async ([stageId, list]) => {
        const writing = index && (await findWritingSegment(index, spansOf.get(stageId) ?? []));
        return {
          stageId,
          spans: list.sort((a, b) => a.startMs - b.startMs),
          ...(writing ? { writing } : {}),
        };
      }),
    );
  };

  app.get<{ Params: { stageId: string; session: string; participant: string; '*': string } }>(
    '/api/recordings/ivs/:stageId/:session/:participant/*',
    { onRequest: signedIn },
    async (request, reply) => {
      const { session, participant } = request.params;
      const stageId = checkedStage(request.params.stageId);
      if (!ivs) throw new HttpError(404, 'No IVS recordings here (the stage is local)');
      let text: string | undefined;
      try {
        text = await ivs.playlist(stageId, session, participant, request.params['*']);
      } catch (error) {
        if (error instanceof BadRecordingPath) throw new HttpError(400, error.message);
        throw error;
      }
      if (text === undefined) throw new HttpError(404, 'No such recording (it may have expired)');
      // Its segment URLs are signed for minutes: nobody keeps it.
      reply.header('cache-control', 'private, no-store');
      reply.header('content-type', 'application/vnd.apple.mpegurl');
      return text;
    },
  );

  app.get<{
    Params: { stageId: string; span: string };
    Querystring: { from?: string; to?: string };
  }>('/api/recordings/:stageId/:span/download', { onRequest: signedIn }, async (request, reply) => {
    const stageId = checkedStage(request.params.stageId);
    const span = checkedSpan(request.params.span);
    const from = checkedTime(request.query.from, 'from');
    const to = checkedTime(request.query.to, 'to');
    if (from !== undefined && to !== undefined && to <= from) {
      throw new HttpError(400, '`to` must be after `from`');
    }
    const [stored] = index === undefined ? [] : await index.read(stageId, span);
    const segments = (stored?.segments ?? []).filter(
      (segment) =>
        (from === undefined || segment.endMs > from) && (to === undefined || segment.startMs < to),
    );
    if (!stored?.meta || segments.length === 0) {
      throw new HttpError(404, 'No recording of that aircraft at that time');
    }
    const first = segments[0]!;
    if (segments.at(-1)!.endMs - first.startMs > MAX_DOWNLOAD_MS) {
      throw new HttpError(400, 'A download is at most one hour: give `from` and `to`');
    }
    const user = request.user;
    if (user === undefined) throw new Error('authentication hook did not run');
    const slot = slots.take(user.id);
    if (!slot.granted) {
      request.log.info(
        { stageId, span, outcome: 'refused', limit: slot.reason },
        'recording download',
      );
      throw new HttpError(
        429,
        slot.reason === 'account'
          ? `This account is downloading already; try again in ${DOWNLOAD_RETRY_AFTER_SECONDS} seconds`
          : `Too many downloads at once; try again in ${DOWNLOAD_RETRY_AFTER_SECONDS} seconds`,
        { 'retry-after': String(DOWNLOAD_RETRY_AFTER_SECONDS) },
      );
    }
    const stamp = new Date(first.startMs).toISOString().replace(/[:.]/g, '-');
    const extension = stored.meta.container;
    const stream = new RemuxStream(
      {
        dir: stored.dir,
        container: extension,
        segments: segments.map((segment) => ({
          name: segment.name,
          shiftSeconds: (segment.startMs - first.startMs) / 1000,
        })),
      },
      stallMs,
    );
    const startedAt = performance.now();
    // The answer ended, whichever way: the worker is stopped if it still runs. Once it has exited
    // the slot is free and the download has its one log line.
    reply.raw.once('close', () => {
      if (!stream.destroyed) stream.destroy();
      const outcome: DownloadOutcome = reply.raw.writableFinished
        ? 'complete'
        : stream.outcome === 'stalled' || stream.outcome === 'failed'
          ? stream.outcome
          : 'aborted';
      void stream.finished.then(() => {
        slot.release();
        request.log.info(
          {
            stageId,
            span,
            segments: segments.length,
            bytes: stream.bytes,
            ms: Math.round(performance.now() - startedAt),
            outcome,
          },
          'recording download',
        );
      });
    });
    reply.header('cache-control', 'private, no-store');
    reply.header('content-type', extension === 'webm' ? 'video/webm' : 'video/mp4');
    reply.header('content-disposition', `attachment; filename="${stageId}-${stamp}.${extension}"`);
    // Sent through the reply (no hijack): the security headers and the request id go with it.
    return reply.send(stream);
  });

  /**
   * `{offsetMs}.part`: the segment starting there, as it is now (decision 0085): `Range: bytes=N-`
   * for what came since N; `Tailcam-Segment: writing` or `complete`.
   */
  const sendSegmentAt = async (
    stageId: string,
    span: string,
    offsetMs: number,
    rangeHeader: string | undefined,
    reply: FastifyReply,
  ) => {
    const range = parseByteRange(rangeHeader);
    const found =
      root === undefined || index === undefined
        ? undefined
        : await readSegmentAt(index, stageId, span, join(root, stageId, span), offsetMs, range);
    if (!found) throw new HttpError(404, 'No such segment (it may have expired)');
    reply.code(found.status);
    reply.header(SEGMENT_STATE_HEADER, found.state);
    if (found.finishedName) reply.header(SEGMENT_NAME_HEADER, found.finishedName);
    // A finished segment never changes; one being written does, under the same name.
    reply.header(
      'cache-control',
      found.state === 'complete' ? 'private, max-age=3600' : 'private, no-store',
    );
    reply.header('accept-ranges', 'bytes');
    reply.header('content-type', found.container === 'mp4' ? 'video/mp4' : 'video/webm');
    for (const [name, value] of Object.entries(found.headers)) reply.header(name, value);
    return reply.send(found.body);
  };

  /** A segment's preview picture (decision 0084), its name checked by the caller. */
  const sendPreview = async (stageId: string, span: string, name: string, reply: FastifyReply) => {
    if (root === undefined) throw new HttpError(404, 'No such preview (no local recordings)');
    const path = join(root, stageId, span, name);
    const found = await stat(path).catch(() => undefined);
    if (!found?.isFile()) throw new HttpError(404, 'No such preview (it may have expired)');
    reply.header('cache-control', 'private, max-age=3600');
    reply.header('content-type', 'image/jpeg');
    reply.header('content-length', String(found.size));
    return reply.send(createReadStream(path));
  };

  app.get<{ Params: { stageId: string; span: string; segment: string } }>(
    '/api/recordings/:stageId/:span/:segment',
    { onRequest: signedIn },
    async (request, reply) => {
      const stageId = checkedStage(request.params.stageId);
      const span = checkedSpan(request.params.span);
      const partOffsetMs = parsePartFileName(request.params.segment);
      if (partOffsetMs !== undefined) {
        return sendSegmentAt(stageId, span, partOffsetMs, request.headers.range, reply);
      }
      if (parsePreviewFileName(request.params.segment)) {
        return sendPreview(stageId, span, request.params.segment, reply);
      }
      if (parseFlightFileName(request.params.segment) !== undefined) {
        return sendFlightData(root, join(stageId, span, request.params.segment), reply);
      }
      const parsed = parseSegmentFileName(request.params.segment);
      if (!parsed) {
        throw new HttpError(
          400,
          'A segment is named {offset}-{duration}.webm or .mp4, or {offset}.part (10 digits); its preview {offset}-{duration}.jpg; its flight data {offset}.flight',
        );
      }
      if (root === undefined) throw new HttpError(404, 'No such segment (no local recordings)');
      const path = join(root, stageId, span, request.params.segment);
      const found = await stat(path).catch(() => undefined);
      if (!found?.isFile()) throw new HttpError(404, 'No such segment (it may have expired)');
      reply.header('cache-control', 'private, max-age=3600');
      reply.header('content-type', parsed.container === 'webm' ? 'video/webm' : 'video/mp4');
      reply.header('content-length', String(found.size));
      return reply.send(createReadStream(path));
    },
  );
}
