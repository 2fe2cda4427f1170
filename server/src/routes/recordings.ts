/**
 * The local stage's recordings for signed-in users (issue 30; layout: protocol/src/recordings.ts,
 * docs/decisions/0072-recorder.md):
 *   GET /api/recordings                                  the recorded spans per aircraft (UTC)
 *   GET /api/recordings/{STAGE}/{SPAN}/{SEGMENT}         one segment (WebM or fMP4), as MSE takes it
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
import {
  ALL_FORMATS,
  EncodedAudioPacketSource,
  EncodedPacketSink,
  EncodedVideoPacketSource,
  FilePathSource,
  Input,
  Mp4OutputFormat,
  Output,
  StreamTarget,
  WebMOutputFormat,
  type StreamTargetChunk,
} from 'mediabunny';
import { isStreamId, type StreamId } from '@tailcam/protocol/streams';
import {
  parseSegmentFileName,
  parseSpanName,
  segmentMimeType,
  spanName,
} from '@tailcam/protocol/recordings';
import { readSpans, type StoredSegment, type StoredSpan } from '@tailcam/protocol/recordings-store';
import type { LoginTokens } from '../auth/login-token';
import { signedInViewer } from '../auth/signed-in-viewer';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import { BadRecordingPath, type IvsRecordings } from '../recordings/ivs-recordings';

/** Segments closer than this make one span on the page (a key frame's wait, a jitter). */
const CONTIGUOUS_MS = 1_000;
/** The longest stretch one download remuxes. */
const MAX_DOWNLOAD_MS = 60 * 60 * 1000;

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
  segments: { name: string; offsetMs: number; durationMs: number }[];
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
      })),
    };
  });
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
  },
): void {
  const signedIn = async (request: FastifyRequest) => {
    await signedInViewer(request, deps);
  };
  const root = deps.recordingsDir;

  const ivs = deps.ivs;
  app.get('/api/recordings', { onRequest: signedIn }, async () => {
    if (ivs) return { aircraft: await ivs.list() };
    const spans = root === undefined ? [] : await readSpans(root);
    const byAircraft = new Map<string, RecordedSpan[]>();
    for (const stored of spans) {
      if (!isStreamId(stored.stageId)) continue;
      const list = byAircraft.get(stored.stageId) ?? [];
      list.push(...contiguousSpans(stored));
      byAircraft.set(stored.stageId, list);
    }
    return {
      aircraft: [...byAircraft].map(([stageId, list]) => ({
        stageId,
        spans: list.sort((a, b) => a.startMs - b.startMs),
      })),
    };
  });

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
    const [stored] = root === undefined ? [] : await readSpans(root, stageId, span);
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
    const stamp = new Date(first.startMs).toISOString().replace(/[:.]/g, '-');
    const extension = stored.meta.container;
    reply.header('cache-control', 'private, no-store');
    reply.header('content-type', extension === 'webm' ? 'video/webm' : 'video/mp4');
    reply.header('content-disposition', `attachment; filename="${stageId}-${stamp}.${extension}"`);
    return remux(stored, segments, reply);
  });

  app.get<{ Params: { stageId: string; span: string; segment: string } }>(
    '/api/recordings/:stageId/:span/:segment',
    { onRequest: signedIn },
    async (request, reply) => {
      const stageId = checkedStage(request.params.stageId);
      const span = checkedSpan(request.params.span);
      const parsed = parseSegmentFileName(request.params.segment);
      if (!parsed) {
        throw new HttpError(400, 'A segment is named {offset}-{duration}.webm or .mp4');
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

/**
 * The segments as one file of the span's container, their packets copied as they are (nothing
 * decoded), each segment's timestamps moved to its place; streamed as it is written.
 */
async function remux(
  stored: StoredSpan,
  segments: StoredSegment[],
  reply: FastifyReply,
): Promise<FastifyReply> {
  const raw = reply.raw;
  let written = 0;
  const writable = new WritableStream<StreamTargetChunk>({
    write(chunk) {
      // The formats below write straight through; a seek back would corrupt the stream.
      if (chunk.position !== written) throw new Error('the muxer seeks back');
      written += chunk.data.byteLength;
      if (!raw.write(chunk.data)) {
        return new Promise((resolve) => raw.once('drain', () => resolve()));
      }
      return undefined;
    },
  });
  const container = stored.meta?.container ?? 'webm';
  const output = new Output({
    format:
      container === 'mp4'
        ? new Mp4OutputFormat({ fastStart: 'fragmented' })
        : new WebMOutputFormat({ appendOnly: true }),
    target: new StreamTarget(writable),
  });
  const firstStart = segments[0]!.startMs;
  const inputs = segments.map(
    (segment) =>
      new Input({
        source: new FilePathSource(join(stored.dir, segment.name)),
        formats: ALL_FORMATS,
      }),
  );
  const probe = inputs[0]!;
  const videoTrack = await probe.getPrimaryVideoTrack();
  const audioTrack = await probe.getPrimaryAudioTrack();
  const video = videoTrack?.codec
    ? new EncodedVideoPacketSource(videoTrack.codec as 'vp8' | 'avc')
    : undefined;
  const audio = audioTrack?.codec ? new EncodedAudioPacketSource('opus') : undefined;
  if (video) output.addVideoTrack(video);
  if (audio) output.addAudioTrack(audio);
  reply.hijack();
  raw.writeHead(200, reply.getHeaders() as Record<string, string>);
  try {
    await output.start();
    for (const [index, input] of inputs.entries()) {
      const shift = (segments[index]!.startMs - firstStart) / 1000;
      const inVideo = await input.getPrimaryVideoTrack();
      const inAudio = await input.getPrimaryAudioTrack();
      // Video first, then the segment's sound: each track's timestamps only go forward.
      if (video && inVideo) {
        const config = await inVideo.getDecoderConfig();
        for await (const packet of new EncodedPacketSink(inVideo).packets()) {
          await video.add(packet.clone({ timestamp: packet.timestamp + shift }), {
            decoderConfig: config ?? undefined,
          });
        }
      }
      if (audio && inAudio) {
        const config = await inAudio.getDecoderConfig();
        for await (const packet of new EncodedPacketSink(inAudio).packets()) {
          await audio.add(packet.clone({ timestamp: packet.timestamp + shift }), {
            decoderConfig: config ?? undefined,
          });
        }
      }
      input.dispose();
    }
    await output.finalize();
    raw.end();
  } catch (error) {
    reply.log.error({ err: error }, 'recording download failed');
    await output.cancel().catch(() => undefined);
    raw.destroy();
  }
  return reply;
}
