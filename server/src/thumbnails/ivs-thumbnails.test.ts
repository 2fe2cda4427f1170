import { describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  AccessDeniedException,
  GetParticipantCommand,
  IVSRealTimeClient,
  ListParticipantsCommand,
  ListStageSessionsCommand,
} from '@aws-sdk/client-ivs-realtime';
import {
  GetObjectCommand,
  NoSuchKey,
  S3Client,
  type GetObjectCommandOutput,
} from '@aws-sdk/client-s3';
import { ivsThumbnails, LATEST_THUMBNAIL_KEY } from './ivs-thumbnails';

const stageArns = { N743AS: 'arn:aws:ivs:us-east-1:123456789012:stage/AbCdEf123456' };
const JPEG = Uint8Array.of(0xff, 0xd8, 1, 2, 0xff, 0xd9);
const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' };

/** S3's answer body: only what the code reads of it. */
function body(bytes: Uint8Array): GetObjectCommandOutput['Body'] {
  const stream = { transformToByteArray: async () => bytes };
  return stream as unknown as GetObjectCommandOutput['Body'];
}

function setUp() {
  const ivsClient = new IVSRealTimeClient({ region: 'us-east-1', credentials });
  const s3Client = new S3Client({ region: 'us-east-1', credentials });
  const ivs = mockClient(ivsClient);
  const s3 = mockClient(s3Client);
  let nowMs = 1_000_000;
  const source = ivsThumbnails({ ivs: ivsClient, s3: s3Client, stageArns, now: () => nowMs });
  ivs.on(ListStageSessionsCommand).resolves({
    stageSessions: [{ sessionId: 'st-live', startTime: new Date() }],
  });
  ivs.on(ListParticipantsCommand).resolves({
    participants: [
      {
        participantId: 'older',
        state: 'CONNECTED',
        firstJoinTime: new Date(1_000),
        recordingState: 'ACTIVE',
      },
      {
        participantId: 'newer',
        state: 'CONNECTED',
        firstJoinTime: new Date(2_000),
        recordingState: 'ACTIVE',
      },
      {
        participantId: 'left',
        state: 'DISCONNECTED',
        firstJoinTime: new Date(3_000),
        recordingState: 'STOPPED',
      },
    ],
  });
  ivs.on(GetParticipantCommand).resolves({
    participant: {
      participantId: 'newer',
      recordingS3BucketName: 'tailcam-thumbnails',
      recordingS3Prefix: 'AbCdEf123456/st-live/newer/rec-1',
    },
  });
  s3.on(GetObjectCommand).resolves({ Body: body(JPEG) });
  return { ivs, s3, source, advance: (ms: number) => (nowMs += ms) };
}

describe('thumbnails with Amazon IVS', () => {
  it("reads the live session's newest connected publisher's LATEST thumbnail from its recording prefix", async () => {
    const { ivs, s3, source } = setUp();
    const picture = await source.latest('N743AS');
    expect(picture).toEqual({ body: Buffer.from(JPEG), contentType: 'image/jpeg' });
    expect(ivs.commandCalls(ListParticipantsCommand)[0]?.args[0].input).toMatchObject({
      stageArn: stageArns.N743AS,
      sessionId: 'st-live',
      filterByPublished: true,
    });
    // One filter a request, as IVS takes them; the participant that left is passed over.
    expect(ivs.commandCalls(ListParticipantsCommand)[0]?.args[0].input).not.toHaveProperty(
      'filterByState',
    );
    expect(ivs.commandCalls(GetParticipantCommand)[0]?.args[0].input).toMatchObject({
      participantId: 'newer',
    });
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'tailcam-thumbnails',
      Key: `AbCdEf123456/st-live/newer/rec-1/${LATEST_THUMBNAIL_KEY}`,
    });
  });

  it('reads S3 once per 5 s however many ask, and looks the participant up again after 30 s', async () => {
    const { ivs, s3, source, advance } = setUp();
    await Promise.all([source.latest('N743AS'), source.latest('N743AS')]);
    await source.latest('N743AS');
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(1);
    advance(5_000);
    await source.latest('N743AS');
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(2);
    expect(ivs.commandCalls(GetParticipantCommand)).toHaveLength(1);
    advance(30_000);
    await source.latest('N743AS');
    expect(ivs.commandCalls(GetParticipantCommand)).toHaveLength(2);
  });

  it('has no picture while nothing is live, before the first thumbnail is written, or for a stream with no stage', async () => {
    const ended = setUp();
    ended.ivs.on(ListStageSessionsCommand).resolves({
      stageSessions: [{ sessionId: 'st-old', startTime: new Date(0), endTime: new Date(1) }],
    });
    expect(await ended.source.latest('N743AS')).toBeUndefined();
    expect(ended.s3.commandCalls(GetObjectCommand)).toHaveLength(0);

    const fresh = setUp();
    fresh.s3
      .on(GetObjectCommand)
      .rejects(new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }));
    expect(await fresh.source.latest('N743AS')).toBeUndefined();
    expect(await fresh.source.latest('N953AS')).toBeUndefined();
  });

  it('passes an AWS failure on, and asks again at the next request', async () => {
    const { ivs, source } = setUp();
    ivs
      .on(ListStageSessionsCommand)
      .rejectsOnce(new AccessDeniedException({ message: 'denied', $metadata: {} }))
      .resolves({ stageSessions: [{ sessionId: 'st-live', startTime: new Date() }] });
    await expect(source.latest('N743AS')).rejects.toThrow('denied');
    expect(await source.latest('N743AS')).toEqual({
      body: Buffer.from(JPEG),
      contentType: 'image/jpeg',
    });
  });
});
