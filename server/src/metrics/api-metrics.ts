/**
 * The API's own figures for Prometheus (docs/decisions/0097-metrics-endpoint.md): its requests'
 * times by route template and status class, the logins' and the thumbnails' outcomes (read off
 * those routes' answers, so the routes count nothing themselves), and the local recordings' bytes
 * and their disk's free space. The stage's figures are its own (metrics-server.ts appends them).
 *
 * Labels are bounded: a route is Fastify's template (`/api/thumbnails/:streamId`, never the path
 * asked for), unmatched requests are `unmatched`, methods outside HTTP's usual few `other`, and
 * `aircraft` a configured tail number. Never a user, an address or a raw path.
 */
import type { StatsFs } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { readSpans } from '@tailcam/protocol/recordings-store';

/** Request times' buckets, seconds: most answers take milliseconds; a long poll up to a minute. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The recordings' bytes are summed at most this often (a walk of every span's directory). */
export const RECORDINGS_READ_MS = 30_000;

export const LOGIN_ROUTE = '/api/login';
export const THUMBNAIL_ROUTE = '/api/thumbnails/:streamId';

export type LoginOutcome = 'ok' | 'refused' | 'limited';
export type ThumbnailOutcome = 'picture' | 'none' | 'refused' | 'limited' | 'error';

/** A login's answer as an outcome: signed in, refused (bad name, password or body), or limited. */
export function loginOutcome(status: number): LoginOutcome | undefined {
  if (status === 200) return 'ok';
  if (status === 429) return 'limited';
  if (status >= 400 && status < 500) return 'refused';
  return undefined;
}

/** A thumbnail's answer as an outcome: a picture, none yet (204), refused, limited, or failed. */
export function thumbnailOutcome(status: number): ThumbnailOutcome {
  if (status === 200) return 'picture';
  if (status === 204) return 'none';
  if (status === 429) return 'limited';
  if (status >= 400 && status < 500) return 'refused';
  return 'error';
}

/**
 * The file system `path` is on: its own, or before the recorder has made it, its nearest parent
 * that exists (where it will be made). Never a made-up 0 for a directory not there yet.
 */
async function diskOf(path: string): Promise<StatsFs | undefined> {
  for (let dir = path; ; dir = dirname(dir)) {
    const disk = await statfs(dir).catch(() => undefined);
    if (disk !== undefined || dirname(dir) === dir) return disk;
  }
}

export interface ApiMetricsOptions {
  /** The configured tail numbers: the only `aircraft` labels. */
  aircraft: readonly string[];
  /** The local recorder's directory (local stage); none with IVS, whose recordings are S3's. */
  recordingsDir?: string | undefined;
  /** Unix ms now (tests move it past the recordings' 30 s). */
  now?: () => number;
}

export class ApiMetrics {
  readonly registry = new Registry();
  private readonly requestSeconds: Histogram<'route' | 'method' | 'status_class'>;
  private readonly logins: Counter<'outcome'>;
  private readonly thumbnails: Counter<'outcome'>;
  private recordingBytes: { readAt: number; bytes: Map<string, number> } | undefined;
  /** Bytes of the finished segments seen so far, per aircraft: what the recorder wrote. */
  private readonly writtenBytes = new Map<string, number>();
  /** Each span's newest segment counted in `writtenBytes` (its start, Unix ms), by directory. */
  private readonly spansCounted = new Map<string, number>();
  private readingRecordings: Promise<void> | undefined;

  constructor(private readonly options: ApiMetricsOptions) {
    const registers = [this.registry];
    this.requestSeconds = new Histogram({
      name: 'tailcam_http_request_duration_seconds',
      help: "The API's answers, from the request until the answer is sent, by route template, method and status class.",
      labelNames: ['route', 'method', 'status_class'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.logins = new Counter({
      name: 'tailcam_logins_total',
      help: 'Sign-ins by outcome: ok, refused (a wrong name or password, a bad body) or limited (429).',
      labelNames: ['outcome'],
      registers,
    });
    this.thumbnails = new Counter({
      name: 'tailcam_thumbnail_answers_total',
      help: "/home's thumbnail answers by outcome: picture, none (204), refused, limited or error.",
      labelNames: ['outcome'],
      registers,
    });
    // Every outcome from the start, so that a rate over them is 0 rather than absent.
    for (const outcome of ['ok', 'refused', 'limited']) this.logins.inc({ outcome }, 0);
    for (const outcome of ['picture', 'none', 'refused', 'limited', 'error']) {
      this.thumbnails.inc({ outcome }, 0);
    }
    const recordingsDir = options.recordingsDir;
    if (recordingsDir !== undefined) {
      new Gauge({
        name: 'tailcam_recordings_disk_free_bytes',
        help: "Free space on the recordings' disk, for an unprivileged writer such as the recorder.",
        registers,
        async collect() {
          const disk = await diskOf(recordingsDir);
          if (disk !== undefined) this.set(disk.bavail * disk.bsize);
        },
      });
      const readBytes = () => this.readRecordingBytes(recordingsDir);
      const aircraft = options.aircraft;
      new Gauge({
        name: 'tailcam_recordings_bytes',
        help: "Bytes of the recorder's finished segments on disk, per aircraft (summed at most every 30 s).",
        labelNames: ['aircraft'],
        registers,
        async collect() {
          const bytes = await readBytes();
          for (const id of aircraft) this.set({ aircraft: id }, bytes.get(id) ?? 0);
        },
      });
      const written = this.writtenBytes;
      new Counter({
        name: 'tailcam_recorder_written_bytes_total',
        help: 'Bytes of the segments the recorder finished, per aircraft, counted as they appear on disk (read at most every 30 s; those there when the API started included).',
        labelNames: ['aircraft'],
        registers,
        async collect() {
          await readBytes();
          this.reset();
          for (const id of aircraft) this.inc({ aircraft: id }, written.get(id) ?? 0);
        },
      });
    }
  }

  /** Counts each answer of `app` (a Fastify onResponse hook). */
  register(app: FastifyInstance): void {
    app.addHook('onResponse', (request, reply, done) => {
      this.answered(request, reply);
      done();
    });
  }

  private answered(request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    this.requestSeconds.observe(
      {
        route,
        method: METHODS.has(request.method) ? request.method : 'other',
        status_class: `${Math.floor(status / 100)}xx`,
      },
      reply.elapsedTime / 1000,
    );
    if (route === LOGIN_ROUTE && request.method === 'POST') {
      const outcome = loginOutcome(status);
      if (outcome !== undefined) this.logins.inc({ outcome });
    }
    if (route === THUMBNAIL_ROUTE && request.method === 'GET') {
      this.thumbnails.inc({ outcome: thumbnailOutcome(status) });
    }
  }

  /** The recordings' bytes per aircraft: read again once the last reading is 30 s old. */
  private async readRecordingBytes(dir: string): Promise<Map<string, number>> {
    const last = this.recordingBytes;
    const now = this.options.now ?? Date.now;
    if (last !== undefined && now() - last.readAt < RECORDINGS_READ_MS) return last.bytes;
    this.readingRecordings ??= (async () => {
      const bytes = new Map<string, number>();
      const spans = (await readSpans(dir).catch(() => [])).filter((span) =>
        this.options.aircraft.includes(span.stageId),
      );
      for (const span of spans) {
        let sum = bytes.get(span.stageId) ?? 0;
        // A span's segments are finished in time order: those after the newest counted are new.
        const counted = this.spansCounted.get(span.dir) ?? Number.NEGATIVE_INFINITY;
        let newest = counted;
        let written = this.writtenBytes.get(span.stageId) ?? 0;
        for (const segment of span.segments) {
          sum += segment.bytes;
          if (segment.startMs <= counted) continue;
          written += segment.bytes;
          newest = Math.max(newest, segment.startMs);
        }
        bytes.set(span.stageId, sum);
        this.writtenBytes.set(span.stageId, written);
        this.spansCounted.set(span.dir, newest);
      }
      // Spans retention removed are forgotten (their segments were counted).
      const present = new Set(spans.map((span) => span.dir));
      for (const spanDir of this.spansCounted.keys()) {
        if (!present.has(spanDir)) this.spansCounted.delete(spanDir);
      }
      this.recordingBytes = { readAt: now(), bytes };
    })().finally(() => (this.readingRecordings = undefined));
    await this.readingRecordings;
    return this.recordingBytes?.bytes ?? new Map();
  }
}
