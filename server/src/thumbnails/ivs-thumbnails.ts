/**
 * Thumbnails with Amazon IVS: individual participant recording writes each publisher's LATEST
 * thumbnail to `{recordingS3Prefix}/media/latest_thumbnail/high/thumb.jpg` in its bucket every
 * few seconds (`npm run ivs -- provision` sets the stages up so). The newest picture of an
 * aircraft is its stage's live session's newest publishing participant's. Where it is (bucket and
 * prefix) is looked up through IVS and kept while that participant publishes; the picture is
 * read at most once per PICTURE_TTL_MS per aircraft, however many viewers ask.
 */
import {
  GetParticipantCommand,
  ListParticipantsCommand,
  ListStageSessionsCommand,
  type IVSRealTimeClient,
} from '@aws-sdk/client-ivs-realtime';
import { GetObjectCommand, NoSuchKey, type S3Client } from '@aws-sdk/client-s3';
import type { StreamId } from '@tailcam/protocol/streams';
import type { Thumbnail, ThumbnailSource } from './thumbnail-source';

const AWS_TIMEOUT_MS = 5_000;
const PICTURE_TTL_MS = 5_000;
const LOCATION_TTL_MS = 30_000;
export const LATEST_THUMBNAIL_KEY = 'media/latest_thumbnail/high/thumb.jpg';

interface Location {
  bucket: string;
  key: string;
}

interface Cached<T> {
  value: T;
  untilMs: number;
}

export function ivsThumbnails(options: {
  ivs: Pick<IVSRealTimeClient, 'send'>;
  s3: Pick<S3Client, 'send'>;
  stageArns: Partial<Record<StreamId, string>>;
  now?: () => number;
}): ThumbnailSource {
  const now = options.now ?? Date.now;
  const locations = new Map<StreamId, Cached<Location | undefined>>();
  const pictures = new Map<StreamId, Cached<Promise<Thumbnail | undefined>>>();
  const signal = () => ({ abortSignal: AbortSignal.timeout(AWS_TIMEOUT_MS) });

  /** Where the aircraft's newest publisher's LATEST thumbnail is, if anyone publishes. */
  async function locate(stageArn: string): Promise<Location | undefined> {
    const sessions = await options.ivs.send(
      new ListStageSessionsCommand({ stageArn, maxResults: 10 }),
      signal(),
    );
    // A stage has one live session at a time (no end time); the newest if ever more are listed.
    const live = (sessions.stageSessions ?? [])
      .filter((session) => session.endTime === undefined)
      .sort((a, b) => (b.startTime?.getTime() ?? 0) - (a.startTime?.getTime() ?? 0))[0];
    if (!live?.sessionId) return undefined;
    const { participants = [] } = await options.ivs.send(
      new ListParticipantsCommand({
        stageArn,
        sessionId: live.sessionId,
        // IVS takes one filter a request: published ones, then the connected among them here.
        filterByPublished: true,
        maxResults: 50,
      }),
      signal(),
    );
    const newest = participants
      .filter(
        (participant) =>
          participant.participantId &&
          participant.state === 'CONNECTED' &&
          participant.recordingState !== 'DISABLED',
      )
      .sort((a, b) => (b.firstJoinTime?.getTime() ?? 0) - (a.firstJoinTime?.getTime() ?? 0))[0];
    if (!newest?.participantId) return undefined;
    const { participant } = await options.ivs.send(
      new GetParticipantCommand({
        stageArn,
        sessionId: live.sessionId,
        participantId: newest.participantId,
      }),
      signal(),
    );
    const bucket = participant?.recordingS3BucketName;
    const prefix = participant?.recordingS3Prefix?.replace(/\/+$/, '');
    if (!bucket || !prefix) return undefined;
    return { bucket, key: `${prefix}/${LATEST_THUMBNAIL_KEY}` };
  }

  async function read(stageId: StreamId, stageArn: string): Promise<Thumbnail | undefined> {
    let location = locations.get(stageId);
    if (!location || location.untilMs <= now()) {
      location = { value: await locate(stageArn), untilMs: now() + LOCATION_TTL_MS };
      locations.set(stageId, location);
    }
    if (!location.value) return undefined;
    try {
      const object = await options.s3.send(
        new GetObjectCommand({ Bucket: location.value.bucket, Key: location.value.key }),
        signal(),
      );
      const bytes = await object.Body?.transformToByteArray();
      return bytes && bytes.length > 0
        ? { body: Buffer.from(bytes), contentType: 'image/jpeg' }
        : undefined;
    } catch (error) {
      // Not written yet (a publisher that has just started), or that participant left: look
      // again next time.
      if (error instanceof NoSuchKey) {
        locations.delete(stageId);
        return undefined;
      }
      throw error;
    }
  }

  return {
    latest(stageId) {
      const stageArn = options.stageArns[stageId];
      if (stageArn === undefined) return Promise.resolve(undefined);
      const cached = pictures.get(stageId);
      if (cached && cached.untilMs > now()) return cached.value;
      const value = read(stageId, stageArn);
      pictures.set(stageId, { value, untilMs: now() + PICTURE_TTL_MS });
      // A failure is not kept: the next viewer's request tries again.
      value.catch(() => pictures.delete(stageId));
      return value;
    },
  };
}
