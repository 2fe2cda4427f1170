/**
 * Where IVS writes the stages' thumbnails (decision 0070): an S3 bucket, in the stages' region,
 * behind an IVS storage configuration tagged for the app, so that provisioning finds it again and
 * changes nothing the second time. The bucket is the one given, or one created for the app (new
 * buckets are owner-enforced and SSE-S3 encrypted by default, as IVS requires).
 */
import { randomBytes } from 'node:crypto';
import {
  CreateStorageConfigurationCommand,
  ListStorageConfigurationsCommand,
} from '@aws-sdk/client-ivs-realtime';
import {
  CreateBucketCommand,
  GetBucketCorsCommand,
  PutBucketCorsCommand,
  S3ServiceException,
  type BucketLocationConstraint,
  type CORSRule,
  type S3Client,
} from '@aws-sdk/client-s3';
import { APP_TAG, StageLookupError, type IvsClient } from './stages';

export type S3 = Pick<S3Client, 'send'>;

export interface ThumbnailStorage {
  storageConfigurationArn: string;
  bucket: string;
  /** What was made this time. */
  created: 'nothing' | 'storage configuration' | 'bucket and storage configuration';
}

/** A bucket name for the app: lowercase, 3 to 63 characters, unique by a random suffix. */
export function bucketNameFor(app: string, suffix = randomBytes(4).toString('hex')): string {
  const base = `${app}-thumbnails`.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
  return `${base.slice(0, 63 - suffix.length - 1)}-${suffix}`.replace(/^-+/, '');
}

/** Every storage configuration tagged for `app` (pages followed). */
async function taggedStorage(ivs: IvsClient, app: string) {
  const found: { arn: string; bucket: string }[] = [];
  let nextToken: string | undefined;
  do {
    const page = await ivs.send(
      new ListStorageConfigurationsCommand({
        maxResults: 100,
        ...(nextToken ? { nextToken } : {}),
      }),
    );
    for (const summary of page?.storageConfigurations ?? []) {
      const bucket = summary.s3?.bucketName;
      if (summary.tags?.[APP_TAG] === app && summary.arn && bucket) {
        found.push({ arn: summary.arn, bucket });
      }
    }
    nextToken = page?.nextToken || undefined;
  } while (nextToken !== undefined);
  return found;
}

/** Finds or makes the app's thumbnail storage, in `bucket` when given. */
export async function provisionThumbnailStorage(
  ivs: IvsClient,
  s3: S3,
  options: { app: string; region: string; bucket?: string },
): Promise<ThumbnailStorage> {
  const existing = (await taggedStorage(ivs, options.app)).filter(
    (storage) => options.bucket === undefined || storage.bucket === options.bucket,
  );
  const [found] = existing;
  if (found)
    return { storageConfigurationArn: found.arn, bucket: found.bucket, created: 'nothing' };
  let bucket = options.bucket;
  if (bucket === undefined) {
    bucket = bucketNameFor(options.app);
    await s3.send(
      new CreateBucketCommand({
        Bucket: bucket,
        // us-east-1 takes no location constraint; every other region needs its own.
        ...(options.region === 'us-east-1'
          ? {}
          : {
              CreateBucketConfiguration: {
                LocationConstraint: options.region as BucketLocationConstraint,
              },
            }),
      }),
    );
  }
  const output = await ivs.send(
    new CreateStorageConfigurationCommand({
      name: `${options.app}-thumbnails`.slice(0, 128),
      s3: { bucketName: bucket },
      tags: { [APP_TAG]: options.app },
    }),
  );
  const arn = output?.storageConfiguration?.arn;
  if (!arn) throw new StageLookupError('CreateStorageConfiguration answered without an ARN');
  return {
    storageConfigurationArn: arn,
    bucket,
    created:
      options.bucket === undefined ? 'bucket and storage configuration' : 'storage configuration',
  };
}

/** The bucket CORS rule by which the Recordings page's hls.js reads the segments (decision 0073). */
export const RECORDING_CORS_RULE: CORSRule = {
  ID: 'tailcam-recordings',
  // Any origin: a segment is read only through a presigned URL the API gave a signed-in user.
  AllowedOrigins: ['*'],
  AllowedMethods: ['GET'],
  AllowedHeaders: ['Range'],
  MaxAgeSeconds: 3600,
};

/**
 * Adds RECORDING_CORS_RULE to the bucket's CORS rules, keeping the others; nothing when it is
 * there already.
 */
export async function allowRecordingPlayback(s3: S3, bucket: string): Promise<'added' | 'found'> {
  let rules: CORSRule[] = [];
  try {
    const answer = await s3.send(new GetBucketCorsCommand({ Bucket: bucket }));
    rules = answer?.CORSRules ?? [];
  } catch (error) {
    // A bucket without CORS rules answers NoSuchCORSConfiguration.
    if (!(error instanceof S3ServiceException && error.name === 'NoSuchCORSConfiguration')) {
      throw error;
    }
  }
  if (rules.some((rule) => rule.ID === RECORDING_CORS_RULE.ID)) return 'found';
  await s3.send(
    new PutBucketCorsCommand({
      Bucket: bucket,
      CORSConfiguration: { CORSRules: [...rules, RECORDING_CORS_RULE] },
    }),
  );
  return 'added';
}
