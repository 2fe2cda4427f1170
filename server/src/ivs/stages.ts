/**
 * The three IVS stages Tailcam streams through, found by their tags so that provisioning is
 * idempotent, and PUBLISH tokens for the aircraft encoders that feed them (decision 0031).
 */
import {
  CreateParticipantTokenCommand,
  CreateStageCommand,
  ListStagesCommand,
  ListTagsForResourceCommand,
  UpdateStageCommand,
  type AutoParticipantRecordingConfiguration,
  type IVSRealTimeClient,
} from '@aws-sdk/client-ivs-realtime';
import { STREAM_IDS, type StreamId } from '@tailcam/protocol/streams';

export type IvsClient = Pick<IVSRealTimeClient, 'send'>;

export const APP_TAG = 'tailcam:app';
export const STREAM_TAG = 'tailcam:stream';
export const DEFAULT_APP = 'tailcam';
/** IVS's global WHIP endpoint, which AWS documents for OBS and other WHIP encoders. */
export const IVS_WHIP_URL = 'https://global.whip.live-video.net';
/** A working day and then some: an encoder token is copied into OBS by hand. */
export const DEFAULT_PUBLISH_TOKEN_MINUTES = 720;
export const MAX_TOKEN_MINUTES = 20_160;

export class StageLookupError extends Error {
  override name = 'StageLookupError';
}

export interface ProvisionedStage {
  streamId: StreamId;
  arn: string;
  created: boolean;
}

/**
 * Individual participant recording as Tailcam needs it, into the storage configuration's bucket:
 * each publisher's audio and video as HLS, which the Recordings page plays (decision
 * 0073), and its LATEST thumbnail every 10 s, which /home shows (decision 0070).
 */
export function participantRecording(
  storageConfigurationArn: string,
): AutoParticipantRecordingConfiguration {
  return {
    storageConfigurationArn,
    // The media itself (HLS under {prefix}/media/hls/): the recordings. ['NONE'] would keep
    // the thumbnails only.
    mediaTypes: ['AUDIO_VIDEO'],
    thumbnailConfiguration: {
      recordingMode: 'INTERVAL',
      targetIntervalSeconds: 10,
      storage: ['LATEST'],
    },
  };
}

/** `name` of a new stage: recognisable in the console, and unique per app. */
export function stageName(app: string, streamId: StreamId): string {
  return `${app}-${streamId}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 128);
}

/** Every stage of the account in this region tagged for `app`, by stream id (pages followed). */
export async function findTaggedStages(
  client: IvsClient,
  app: string,
): Promise<Partial<Record<StreamId, string>>> {
  const found = new Map<StreamId, string[]>();
  let nextToken: string | undefined;
  do {
    const page = await client.send(
      new ListStagesCommand({ maxResults: 100, ...(nextToken ? { nextToken } : {}) }),
    );
    for (const summary of page.stages ?? []) {
      // ListStages returns tags; ask for them only if an answer ever comes without.
      const tags =
        summary.tags ??
        (await client.send(new ListTagsForResourceCommand({ resourceArn: summary.arn }))).tags ??
        {};
      const streamId = STREAM_IDS.find((id) => id === tags[STREAM_TAG]);
      if (tags[APP_TAG] !== app || streamId === undefined || summary.arn === undefined) continue;
      found.set(streamId, [...(found.get(streamId) ?? []), summary.arn]);
    }
    nextToken = page.nextToken || undefined;
  } while (nextToken !== undefined);

  const stages: Partial<Record<StreamId, string>> = {};
  for (const [streamId, arns] of found) {
    if (arns.length > 1) {
      throw new StageLookupError(
        `${arns.length} stages are tagged ${APP_TAG}=${app}, ${STREAM_TAG}=${streamId}: ${arns.join(', ')}. ` +
          'Delete or untag all but one, then run this again.',
      );
    }
    stages[streamId] = arns[0];
  }
  return stages;
}

/**
 * Finds the app's three stages and creates the missing ones, tagged, each with `recording` (an
 * existing stage is updated to it). Safe to run again.
 */
export async function provisionStages(
  client: IvsClient,
  app: string = DEFAULT_APP,
  recording?: AutoParticipantRecordingConfiguration,
): Promise<ProvisionedStage[]> {
  const existing = await findTaggedStages(client, app);
  const result: ProvisionedStage[] = [];
  const withRecording = recording ? { autoParticipantRecordingConfiguration: recording } : {};
  for (const streamId of STREAM_IDS) {
    const arn = existing[streamId];
    if (arn !== undefined) {
      if (recording) await client.send(new UpdateStageCommand({ arn, ...withRecording }));
      result.push({ streamId, arn, created: false });
      continue;
    }
    const output = await client.send(
      new CreateStageCommand({
        name: stageName(app, streamId),
        tags: { [APP_TAG]: app, [STREAM_TAG]: streamId },
        ...withRecording,
      }),
    );
    const createdArn = output.stage?.arn;
    if (createdArn === undefined) {
      throw new StageLookupError(`CreateStage for ${streamId} answered without a stage ARN`);
    }
    result.push({ streamId, arn: createdArn, created: true });
  }
  return result;
}

/** The line the API's configuration takes, e.g. for `.env`. */
export function stageArnsLine(stages: readonly ProvisionedStage[]): string {
  return `IVS_STAGE_ARNS=${stages.map((stage) => `${stage.streamId}=${stage.arn}`).join(',')}`;
}

export interface PublishToken {
  token: string;
  participantId: string | undefined;
  expiresAt: Date | undefined;
  stageArn: string;
  whipUrl: string;
}

/** A PUBLISH-only participant token for the encoder of one stream. */
export async function createPublishToken(
  client: IvsClient,
  options: { stageArn: string; streamId: StreamId; minutes: number; userId: string },
): Promise<PublishToken> {
  const output = await client.send(
    new CreateParticipantTokenCommand({
      stageArn: options.stageArn,
      userId: options.userId,
      capabilities: ['PUBLISH'],
      duration: options.minutes,
      attributes: { role: 'encoder', streamId: options.streamId },
    }),
  );
  const token = output.participantToken?.token;
  if (token === undefined || token === '') {
    throw new StageLookupError('CreateParticipantToken answered without a token');
  }
  return {
    token,
    participantId: output.participantToken?.participantId,
    expiresAt: output.participantToken?.expirationTime,
    stageArn: options.stageArn,
    whipUrl: IVS_WHIP_URL,
  };
}
