/**
 * Recordings with Amazon IVS (decision 0073): individual participant recording writes
 * each publisher's media as HLS to `{stage id}/{session id}/{participant id}/media/hls/` in the
 * recordings bucket (`npm run ivs -- provision` sets the stages up so), beside
 * `events/recording-started.json` and, once it ends, `events/recording-ended.json`. The list walks
 * those prefixes (S3 ListObjectsV2, one level at a time) and times each recording by its event
 * files; the playlists are read here and their segments' URIs replaced by S3 presigned GET URLs
 * that live SIGNED_URL_SECONDS, so the bucket stays private and only a signed-in user's player
 * gets them.
 */
import {
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { STREAM_IDS, type StreamId } from '@tailcam/protocol/streams';

const AWS_TIMEOUT_MS = 5_000;
/** How long a segment URL in a playlist lives; the player reloads the playlist after that. */
export const SIGNED_URL_SECONDS = 600;
/** The newest recordings listed per aircraft. */
const MAX_PER_AIRCRAFT = 50;
const LIST_TTL_MS = 15_000;

export const HLS_MIME_TYPE = 'application/vnd.apple.mpegurl';
/** A session or participant id as IVS writes it in the prefix (`st-…`, letters and digits). */
const ID = /^[A-Za-z0-9-]{1,64}$/;
/** A playlist under `media/hls/`: the multivariant one or a rendition's. */
const PLAYLIST = /^(?:multivariant|[a-z0-9_]{1,32}\/playlist)\.m3u8$/;

export interface IvsRecordedSpan {
  span: string;
  start: string;
  end: string;
  startMs: number;
  endMs: number;
  publisher: 'encoder';
  mimeType: string;
  segments: never[];
  /** The multivariant playlist on this API, under /api/recordings/. */
  hls: string;
  /**
   * Still being recorded (no end event yet): its `endMs` is when the list was read (kept
   * LIST_TTL_MS), and its playlists grow, without `EXT-X-ENDLIST`, as IVS uploads each segment.
   */
  inProgress?: true;
}

export interface IvsRecordings {
  list(): Promise<{ stageId: StreamId; spans: IvsRecordedSpan[] }[]>;
  /** A playlist, segment URIs signed; undefined when there is none of that name. */
  playlist(
    stageId: StreamId,
    session: string,
    participant: string,
    path: string,
  ): Promise<string | undefined>;
}

export class BadRecordingPath extends Error {}

type SigningS3 = Parameters<typeof getSignedUrl>[0];

/** The resource id of a stage ARN: `arn:aws:ivs:…:stage/AbCd` → `AbCd`. */
export function stageResourceId(arn: string): string {
  return arn.slice(arn.lastIndexOf('/') + 1);
}

/**
 * A rendition playlist with each segment (and the init segment of `EXT-X-MAP`) named by a signed
 * URL; `sign` turns a key relative to the playlist's folder into one.
 */
export async function signPlaylist(
  text: string,
  sign: (relative: string) => Promise<string>,
): Promise<string> {
  const relative = (uri: string) =>
    /^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*$/.test(uri) && !uri.split('/').includes('..');
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const map = /^#EXT-X-MAP:(.*)URI="([^"]+)"(.*)$/.exec(line);
    if (map) {
      if (relative(map[2]!)) out.push(`#EXT-X-MAP:${map[1]}URI="${await sign(map[2]!)}"${map[3]}`);
    } else if (line === '' || line.startsWith('#')) out.push(line);
    else if (relative(line)) out.push(await sign(line));
    // Anything else (an absolute URL, a path out of the folder) is not IVS's: left out.
  }
  return out.join('\n');
}

export function ivsRecordings(options: {
  s3: SigningS3;
  bucket: string;
  stageArns: Partial<Record<StreamId, string>>;
  now?: () => number;
}): IvsRecordings {
  const now = options.now ?? Date.now;
  const signal = () => ({ abortSignal: AbortSignal.timeout(AWS_TIMEOUT_MS) });
  const s3 = options.s3 as unknown as Pick<S3Client, 'send'>;
  let cached: { untilMs: number; value: ReturnType<IvsRecordings['list']> } | undefined;

  /** The folders one level under `prefix` (pages followed). */
  async function folders(prefix: string): Promise<string[]> {
    const found: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({
          Bucket: options.bucket,
          Prefix: prefix,
          Delimiter: '/',
          ...(token ? { ContinuationToken: token } : {}),
        }),
        signal(),
      );
      for (const common of page.CommonPrefixes ?? []) {
        const name = common.Prefix?.slice(prefix.length).replace(/\/$/, '');
        if (name && ID.test(name)) found.push(name);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found;
  }

  async function recording(
    stageId: StreamId,
    resourceId: string,
    session: string,
    participant: string,
  ): Promise<IvsRecordedSpan | undefined> {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: options.bucket,
        Prefix: `${resourceId}/${session}/${participant}/events/`,
      }),
      signal(),
    );
    const when = (name: string) =>
      page.Contents?.find((object) => object.Key?.endsWith(`/events/${name}`))?.LastModified;
    const started = when('recording-started.json');
    if (!started) return undefined;
    // Still recording: up to now; ended or failed: up to that event.
    const ended = when('recording-ended.json') ?? when('recording-failed.json');
    const startMs = started.getTime();
    const endMs = Math.max(startMs, ended?.getTime() ?? now());
    return {
      span: `${session}/${participant}`,
      start: new Date(startMs).toISOString(),
      end: new Date(endMs).toISOString(),
      startMs,
      endMs,
      publisher: 'encoder',
      mimeType: HLS_MIME_TYPE,
      segments: [],
      hls: `/api/recordings/ivs/${stageId}/${session}/${participant}/multivariant.m3u8`,
      ...(ended ? {} : { inProgress: true as const }),
    };
  }

  async function listAll() {
    const result: { stageId: StreamId; spans: IvsRecordedSpan[] }[] = [];
    for (const stageId of STREAM_IDS) {
      const arn = options.stageArns[stageId];
      if (arn === undefined) continue;
      const resourceId = stageResourceId(arn);
      const spans: IvsRecordedSpan[] = [];
      for (const session of await folders(`${resourceId}/`)) {
        for (const participant of await folders(`${resourceId}/${session}/`)) {
          const span = await recording(stageId, resourceId, session, participant);
          if (span) spans.push(span);
        }
      }
      spans.sort((a, b) => a.startMs - b.startMs);
      if (spans.length > 0) result.push({ stageId, spans: spans.slice(-MAX_PER_AIRCRAFT) });
    }
    return result;
  }

  return {
    list() {
      if (cached && cached.untilMs > now()) return cached.value;
      const value = listAll();
      cached = { untilMs: now() + LIST_TTL_MS, value };
      // A failure is not kept: the next request asks S3 again.
      value.catch(() => (cached = undefined));
      return value;
    },

    async playlist(stageId, session, participant, path) {
      if (!ID.test(session) || !ID.test(participant) || !PLAYLIST.test(path)) {
        throw new BadRecordingPath(
          'A recording is named by its session, its participant and a playlist (.m3u8)',
        );
      }
      const arn = options.stageArns[stageId];
      if (arn === undefined) return undefined;
      const key = `${stageResourceId(arn)}/${session}/${participant}/media/hls/${path}`;
      let text: string;
      try {
        const object = await s3.send(
          new GetObjectCommand({ Bucket: options.bucket, Key: key }),
          signal(),
        );
        text = (await object.Body?.transformToString()) ?? '';
      } catch (error) {
        if (error instanceof NoSuchKey) return undefined;
        throw error;
      }
      // The multivariant playlist names its renditions relatively: they come back to this API.
      if (path === 'multivariant.m3u8') return text;
      const dir = key.slice(0, key.lastIndexOf('/') + 1);
      return signPlaylist(text, (relative) =>
        getSignedUrl(
          options.s3,
          new GetObjectCommand({ Bucket: options.bucket, Key: `${dir}${relative}` }),
          { expiresIn: SIGNED_URL_SECONDS },
        ),
      );
    },
  };
}
