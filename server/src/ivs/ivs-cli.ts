/**
 * `npm run ivs -- <command>`: provisions the three IVS stages and issues PUBLISH tokens for the
 * aircraft encoders. Machine-readable lines (`IVS_STAGE_ARNS=...`, `WHIP_URL=...`,
 * `PUBLISH_TOKEN=...`) go to standard output; what a person reads goes to standard error.
 * Every failure ends in one readable sentence and exit code 1 (2 for bad usage), never a stack.
 */
import { parseArgs } from 'node:util';
import { IVSRealTimeClient } from '@aws-sdk/client-ivs-realtime';
import { S3Client } from '@aws-sdk/client-s3';
import { STREAM_IDS, isStreamId, type StreamId } from '@tailcam/protocol/streams';
import { parseStageArns } from '../config-values';
import type { Env } from '../env';
import { describeAwsError } from './aws-errors';
import {
  createPublishToken,
  DEFAULT_APP,
  DEFAULT_PUBLISH_TOKEN_MINUTES,
  findTaggedStages,
  MAX_TOKEN_MINUTES,
  provisionStages,
  stageArnsLine,
  StageLookupError,
  STREAM_TAG,
  participantRecording,
  type IvsClient,
} from './stages';
import { allowRecordingPlayback, provisionThumbnailStorage, type S3 } from './thumbnail-storage';

export const IVS_USAGE = `Usage: npm run ivs -- <command> [options]

Commands:
  provision                 find or create the stages for ${STREAM_IDS.join(', ')} (tagged, so
                            running it again changes nothing), with individual participant
                            recording to an S3 bucket (each publisher as HLS, and its LATEST
                            thumbnail every 10 s), and print the IVS_STAGE_ARNS and
                            IVS_RECORDINGS_BUCKET lines
  publish-token STREAM_ID   issue a PUBLISH token for that stream's encoder and print the
                            WHIP URL and token to give it (e.g. OBS, Service: WHIP)

Options:
  --region REGION     AWS region of the stages (default: AWS_REGION)
  --app NAME          value of the tailcam:app tag, to keep several deployments apart in one
                      account (default: ${DEFAULT_APP})
  --bucket NAME       provision: the S3 bucket (in the stages' region) for the recordings
                      (default: one created for the app, or the one found from before)
  --minutes N         publish-token: token lifetime, 1 to ${MAX_TOKEN_MINUTES} (default: ${DEFAULT_PUBLISH_TOKEN_MINUTES})
  --user-id ID        publish-token: the participant's user id (default: encoder-STREAM_ID)

AWS credentials come from the AWS SDK's usual chain: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY,
AWS_PROFILE, or an IAM role. The IAM policy it needs is in docs/deployment.md.`;

export interface IvsCliIo {
  env: Env;
  out: (line: string) => void;
  err: (line: string) => void;
  createClient?: (region: string) => IvsClient;
  createS3Client?: (region: string) => S3;
}

class UsageError extends Error {}
/** Something missing from the environment: said alone, without the usage text. */
class SetupError extends Error {}

function defaultClient(region: string): IvsClient {
  return new IVSRealTimeClient({ region, maxAttempts: 3 });
}

function defaultS3Client(region: string): S3 {
  return new S3Client({ region, maxAttempts: 3 });
}

function parseMinutes(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PUBLISH_TOKEN_MINUTES;
  const minutes = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(minutes >= 1 && minutes <= MAX_TOKEN_MINUTES)) {
    throw new UsageError(`--minutes must be a whole number from 1 to ${MAX_TOKEN_MINUTES}`);
  }
  return minutes;
}

async function stageArnFor(
  client: IvsClient,
  env: Env,
  app: string,
  streamId: StreamId,
): Promise<{ arn: string; from: string }> {
  const configured = env.IVS_STAGE_ARNS?.trim();
  if (configured) {
    const { arns, problems } = parseStageArns(configured);
    const arn = arns[streamId];
    if (arn !== undefined) return { arn, from: 'IVS_STAGE_ARNS' };
    if (problems.length > 0) {
      throw new UsageError(problems.map((problem) => `IVS_STAGE_ARNS: ${problem}`).join('; '));
    }
  }
  const arn = (await findTaggedStages(client, app))[streamId];
  if (arn === undefined) {
    throw new StageLookupError(
      `No stage is tagged ${STREAM_TAG}=${streamId} for app "${app}" in this region: run \`npm run ivs -- provision\` first.`,
    );
  }
  return { arn, from: 'its tags' };
}

export async function runIvsCli(args: string[], io: IvsCliIo): Promise<number> {
  let action = 'The IVS command';
  try {
    const { values, positionals } = (() => {
      try {
        return parseArgs({
          args,
          allowPositionals: true,
          options: {
            region: { type: 'string' },
            app: { type: 'string' },
            minutes: { type: 'string' },
            'user-id': { type: 'string' },
            bucket: { type: 'string' },
            help: { type: 'boolean', short: 'h' },
          },
        });
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    })();
    const [command, ...rest] = positionals;
    if (values.help || command === undefined || command === 'help') {
      io.err(IVS_USAGE);
      return command === undefined && !values.help ? 2 : 0;
    }
    const region = (values.region ?? io.env.AWS_REGION ?? '').trim();
    const app = values.app ?? DEFAULT_APP;
    if (!/^[A-Za-z0-9_.:/=+@-]{1,256}$/.test(app)) {
      throw new UsageError('--app must be 1 to 256 letters, digits or _.:/=+@-');
    }

    if (command === 'provision') {
      if (rest.length > 0 || values.minutes !== undefined || values['user-id'] !== undefined) {
        throw new UsageError('provision takes no arguments besides --region, --app and --bucket');
      }
      const bucket = values.bucket;
      if (bucket !== undefined && !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
        throw new UsageError('--bucket must be an S3 bucket name: 3 to 63 a-z, 0-9, . and -');
      }
      if (region === '') throw new SetupError(missingRegion);
      const client = (io.createClient ?? defaultClient)(region);
      action = "Setting up the thumbnails' storage";
      const storage = await provisionThumbnailStorage(
        client,
        (io.createS3Client ?? defaultS3Client)(region),
        { app, region, ...(bucket === undefined ? {} : { bucket }) },
      );
      io.err(
        `Thumbnails: the LATEST of each publisher every 10 s to s3://${storage.bucket}/ (storage configuration ${storage.storageConfigurationArn}${storage.created === 'nothing' ? ', found' : `, ${storage.created} created`}).`,
      );
      action = "Letting browsers read the recordings (the bucket's CORS)";
      const cors = await allowRecordingPlayback(
        (io.createS3Client ?? defaultS3Client)(region),
        storage.bucket,
      );
      io.err(
        `Recordings: each publisher as HLS to the same bucket; its CORS rule for the player (GET from any origin, presigned URLs only) ${cors === 'added' ? 'added' : 'found'}.`,
      );
      action = 'Provisioning the stages';
      const stages = await provisionStages(
        client,
        app,
        participantRecording(storage.storageConfigurationArn),
      );
      for (const stage of stages) {
        io.err(`${stage.streamId}  ${stage.created ? 'created' : 'found  '}  ${stage.arn}`);
      }
      io.err(
        `Put this line in the API's environment (e.g. .env), with AWS_REGION=${region} and STAGE_PROVIDER=ivs:`,
      );
      io.out(stageArnsLine(stages));
      io.out(`IVS_RECORDINGS_BUCKET=${storage.bucket}`);
      return 0;
    }

    if (command === 'publish-token') {
      const [streamId, ...extra] = rest;
      if (streamId === undefined || extra.length > 0) {
        throw new UsageError('publish-token takes one STREAM_ID');
      }
      if (!isStreamId(streamId)) {
        throw new UsageError(`Unknown stream "${streamId}": one of ${STREAM_IDS.join(', ')}`);
      }
      const minutes = parseMinutes(values.minutes);
      const userId = values['user-id'] ?? `encoder-${streamId}`;
      if (userId.length < 1 || userId.length > 128) {
        throw new UsageError('--user-id must be 1 to 128 characters');
      }
      if (region === '') throw new SetupError(missingRegion);
      const client = (io.createClient ?? defaultClient)(region);
      action = 'Finding the stage';
      const stage = await stageArnFor(client, io.env, app, streamId);
      action = 'Creating the publish token';
      const issued = await createPublishToken(client, {
        stageArn: stage.arn,
        streamId,
        minutes,
        userId,
      });
      const until = issued.expiresAt?.toISOString() ?? `${minutes} minutes from now`;
      io.err(
        `PUBLISH token for ${streamId}: stage ${stage.arn} (from ${stage.from}), user ${userId}` +
          `${issued.participantId ? `, participant ${issued.participantId}` : ''}, valid until ${until}.`,
      );
      io.err(
        'Give the encoder the WHIP URL and the token as its bearer token. In OBS (30 or later): ' +
          'Settings > Stream > Service: WHIP, Server: the WHIP_URL, Bearer Token: the PUBLISH_TOKEN.',
      );
      io.out(`WHIP_URL=${issued.whipUrl}`);
      io.out(`PUBLISH_TOKEN=${issued.token}`);
      return 0;
    }
    throw new UsageError(`Unknown command "${command}"`);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${IVS_USAGE}`);
      return 2;
    }
    io.err(
      error instanceof StageLookupError || error instanceof SetupError
        ? error.message
        : describeAwsError(error, action),
    );
    return 1;
  }
}

const missingRegion =
  'AWS_REGION is not set: set it to the region of your stages (e.g. AWS_REGION=us-east-1 in .env) or pass --region.';
