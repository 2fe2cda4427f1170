import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  AccessDeniedException,
  CreateParticipantTokenCommand,
  CreateStageCommand,
  CreateStorageConfigurationCommand,
  IVSRealTimeClient,
  ListStagesCommand,
  ListStorageConfigurationsCommand,
  ListTagsForResourceCommand,
  UpdateStageCommand,
} from '@aws-sdk/client-ivs-realtime';
import {
  CreateBucketCommand,
  GetBucketCorsCommand,
  PutBucketCorsCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../test/helpers';
import { runIvsCli } from './ivs-cli';

const arn = (id: string) => `arn:aws:ivs:eu-west-1:123456789012:stage/${id}`;
const STORAGE_ARN = 'arn:aws:ivs:eu-west-1:123456789012:storage-configuration/AbCd1234';
const RECORDING = {
  storageConfigurationArn: STORAGE_ARN,
  mediaTypes: ['AUDIO_VIDEO'],
  thumbnailConfiguration: {
    recordingMode: 'INTERVAL',
    targetIntervalSeconds: 10,
    storage: ['LATEST'],
  },
};
const tagged = (streamId: string, app = 'tailcam') => ({
  'tailcam:app': app,
  'tailcam:stream': streamId,
});

function setup(env: Record<string, string> = { AWS_REGION: 'eu-west-1' }) {
  const client = new IVSRealTimeClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
  });
  const mock = mockClient(client);
  const s3Client = new S3Client({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
  });
  const s3 = mockClient(s3Client);
  const storage = () => {
    mock.on(ListStorageConfigurationsCommand).resolves({ storageConfigurations: [] });
    mock
      .on(CreateStorageConfigurationCommand)
      .resolves({ storageConfiguration: { arn: STORAGE_ARN, s3: { bucketName: 'b' } } });
    mock.on(UpdateStageCommand).resolves({});
  };
  storage();
  const out: string[] = [];
  const err: string[] = [];
  const regions: string[] = [];
  const run = (...args: string[]) =>
    runIvsCli(args, {
      env,
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      createClient: (region) => {
        regions.push(region);
        return client;
      },
      createS3Client: () => s3Client,
    });
  return { mock, s3, storage, out, err, regions, run };
}

describe('npm run ivs -- provision', () => {
  it('creates the three stages, tagged, and prints the IVS_STAGE_ARNS line', async () => {
    const { mock, out, err, run } = setup();
    mock.on(ListStagesCommand).resolves({ stages: [] });
    mock
      .on(CreateStageCommand)
      .callsFake((input: { name: string }) => ({ stage: { arn: arn(input.name.slice(-6)) } }));
    expect(await run('provision')).toBe(0);
    expect(mock.commandCalls(ListStagesCommand).map((call) => call.args[0].input)).toEqual([
      { maxResults: 100 },
    ]);
    expect(mock.commandCalls(CreateStageCommand).map((call) => call.args[0].input)).toEqual(
      ['N743AS', 'N953AS', 'N954AS'].map((id) => ({
        name: `tailcam-${id}`,
        tags: tagged(id),
        autoParticipantRecordingConfiguration: RECORDING,
      })),
    );
    expect(out).toEqual([
      `IVS_STAGE_ARNS=N743AS=${arn('N743AS')},N953AS=${arn('N953AS')},N954AS=${arn('N954AS')}`,
      expect.stringMatching(/^IVS_RECORDINGS_BUCKET=tailcam-thumbnails-[0-9a-f]{8}$/),
    ]);
    expect(err[2]).toBe(`N743AS  created  ${arn('N743AS')}`);
  });

  it('is idempotent: finds tagged stages across pages and creates only what is missing', async () => {
    const { mock, storage, out, err, run } = setup();
    mock
      .on(ListStagesCommand, { maxResults: 100 })
      .resolves({
        stages: [
          { arn: arn('other1'), tags: { team: 'x' } },
          { arn: arn('N743AS'), tags: tagged('N743AS') },
          { arn: arn('staging'), tags: tagged('N953AS', 'tailcam-staging') },
        ],
        nextToken: 'page-2',
      })
      .on(ListStagesCommand, { maxResults: 100, nextToken: 'page-2' })
      .resolves({
        stages: [{ arn: arn('untagged') }, { arn: arn('N954AS'), tags: tagged('N954AS') }],
      });
    mock.on(ListTagsForResourceCommand).resolves({ tags: {} });
    mock.on(CreateStageCommand).resolves({ stage: { arn: arn('N953AS') } });
    expect(await run('provision')).toBe(0);
    expect(mock.commandCalls(ListStagesCommand)).toHaveLength(2);
    // A summary without tags is asked about; tagged ones are not.
    expect(mock.commandCalls(ListTagsForResourceCommand).map((call) => call.args[0].input)).toEqual(
      [{ resourceArn: arn('untagged') }],
    );
    expect(mock.commandCalls(CreateStageCommand).map((call) => call.args[0].input)).toEqual([
      {
        name: 'tailcam-N953AS',
        tags: tagged('N953AS'),
        autoParticipantRecordingConfiguration: RECORDING,
      },
    ]);
    // The stages found get the thumbnails' recording too.
    expect(mock.commandCalls(UpdateStageCommand).map((call) => call.args[0].input)).toEqual(
      ['N743AS', 'N954AS'].map((id) => ({
        arn: arn(id),
        autoParticipantRecordingConfiguration: RECORDING,
      })),
    );
    expect(err.slice(2, 5)).toEqual([
      `N743AS  found    ${arn('N743AS')}`,
      `N953AS  created  ${arn('N953AS')}`,
      `N954AS  found    ${arn('N954AS')}`,
    ]);
    expect(out).toEqual([
      `IVS_STAGE_ARNS=N743AS=${arn('N743AS')},N953AS=${arn('N953AS')},N954AS=${arn('N954AS')}`,
      expect.stringMatching(/^IVS_RECORDINGS_BUCKET=tailcam-thumbnails-[0-9a-f]{8}$/),
    ]);

    // Once all three exist, running it again creates nothing.
    mock.reset();
    storage();
    mock.on(ListStagesCommand).resolves({
      stages: ['N743AS', 'N953AS', 'N954AS'].map((id) => ({ arn: arn(id), tags: tagged(id) })),
    });
    expect(await run('provision')).toBe(0);
    expect(mock.commandCalls(CreateStageCommand)).toHaveLength(0);
  });

  it('keeps deployments apart with --app and uses --region over AWS_REGION', async () => {
    const { mock, regions, run } = setup();
    mock.on(ListStagesCommand).resolves({ stages: [{ arn: arn('prod'), tags: tagged('N743AS') }] });
    mock.on(CreateStageCommand).resolves({ stage: { arn: arn('new') } });
    expect(await run('provision', '--app', 'tailcam-staging', '--region', 'us-west-2')).toBe(0);
    expect(regions).toEqual(['us-west-2']);
    expect(mock.commandCalls(CreateStageCommand)[0]!.args[0].input).toMatchObject({
      name: 'tailcam-staging-N743AS',
      tags: tagged('N743AS', 'tailcam-staging'),
    });
  });

  it('sets up LATEST thumbnails in a bucket it creates in the region, or in the one given, once', async () => {
    const { mock, s3, err, run } = setup();
    mock.on(ListStagesCommand).resolves({ stages: [] });
    mock.on(CreateStageCommand).resolves({ stage: { arn: arn('new') } });
    expect(await run('provision')).toBe(0);
    const bucket = s3.commandCalls(CreateBucketCommand)[0]?.args[0].input;
    expect(bucket).toEqual({
      Bucket: expect.stringMatching(/^tailcam-thumbnails-[0-9a-f]{8}$/),
      CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
    });
    expect(mock.commandCalls(CreateStorageConfigurationCommand)[0]?.args[0].input).toEqual({
      name: 'tailcam-thumbnails',
      s3: { bucketName: bucket?.Bucket },
      tags: { 'tailcam:app': 'tailcam' },
    });
    expect(err[0]).toContain(`the LATEST of each publisher every 10 s to s3://${bucket?.Bucket}/`);

    // With a bucket given: no bucket created; a storage configuration found is used again.
    const given = setup();
    given.mock.on(ListStagesCommand).resolves({ stages: [] });
    given.mock.on(CreateStageCommand).resolves({ stage: { arn: arn('new') } });
    given.mock.on(ListStorageConfigurationsCommand).resolves({
      storageConfigurations: [
        { arn: 'arn:other', s3: { bucketName: 'their-bucket' }, tags: { 'tailcam:app': 'other' } },
        {
          arn: STORAGE_ARN,
          s3: { bucketName: 'our-thumbnails' },
          tags: { 'tailcam:app': 'tailcam' },
        },
      ],
    });
    expect(await given.run('provision', '--bucket', 'our-thumbnails')).toBe(0);
    expect(given.s3.commandCalls(CreateBucketCommand)).toHaveLength(0);
    expect(given.mock.commandCalls(CreateStorageConfigurationCommand)).toHaveLength(0);
    expect(given.mock.commandCalls(CreateStageCommand)[0]?.args[0].input).toMatchObject({
      autoParticipantRecordingConfiguration: RECORDING,
    });
    expect(await given.run('provision', '--bucket', 'Not_A_Bucket')).toBe(2);
  });

  it("records each publisher's media and lets browsers read it, keeping the bucket's other CORS rules", async () => {
    const { mock, s3, err, run } = setup();
    mock.on(ListStagesCommand).resolves({ stages: [] });
    mock.on(CreateStageCommand).resolves({ stage: { arn: arn('new') } });
    const theirs = { AllowedOrigins: ['https://example.org'], AllowedMethods: ['PUT'] };
    s3.on(GetBucketCorsCommand).resolves({ CORSRules: [theirs] });
    expect(await run('provision')).toBe(0);
    expect(mock.commandCalls(CreateStageCommand)[0]?.args[0].input).toMatchObject({
      autoParticipantRecordingConfiguration: { mediaTypes: ['AUDIO_VIDEO'] },
    });
    const rules = s3.commandCalls(PutBucketCorsCommand)[0]?.args[0].input.CORSConfiguration;
    expect(rules?.CORSRules).toEqual([
      theirs,
      expect.objectContaining({ ID: 'tailcam-recordings', AllowedMethods: ['GET'] }),
    ]);
    expect(err[1]).toContain('CORS rule for the player');
    expect(err[1]).toContain('added');

    // Found the second time: nothing written. A bucket without rules answers an error.
    const again = setup();
    again.mock.on(ListStagesCommand).resolves({ stages: [] });
    again.mock.on(CreateStageCommand).resolves({ stage: { arn: arn('new') } });
    again.s3.on(GetBucketCorsCommand).resolves({ CORSRules: [rules!.CORSRules![1]!] });
    expect(await again.run('provision')).toBe(0);
    expect(again.s3.commandCalls(PutBucketCorsCommand)).toHaveLength(0);
    const bare = setup();
    bare.mock.on(ListStagesCommand).resolves({ stages: [] });
    bare.mock.on(CreateStageCommand).resolves({ stage: { arn: arn('new') } });
    bare.s3.on(GetBucketCorsCommand).rejects(
      new S3ServiceException({
        name: 'NoSuchCORSConfiguration',
        $fault: 'client',
        $metadata: {},
        message: 'The CORS configuration does not exist',
      }),
    );
    expect(await bare.run('provision')).toBe(0);
    expect(bare.s3.commandCalls(PutBucketCorsCommand)[0]?.args[0].input.CORSConfiguration).toEqual({
      CORSRules: [expect.objectContaining({ ID: 'tailcam-recordings' })],
    });
  });

  it('refuses to guess when two stages carry the same tags', async () => {
    const { mock, out, err, run } = setup();
    mock.on(ListStagesCommand).resolves({
      stages: [
        { arn: arn('one'), tags: tagged('N743AS') },
        { arn: arn('two'), tags: tagged('N743AS') },
      ],
    });
    expect(await run('provision')).toBe(1);
    expect(mock.commandCalls(CreateStageCommand)).toHaveLength(0);
    expect(out).toEqual([]);
    expect(err.join('\n')).toContain(
      `2 stages are tagged tailcam:app=tailcam, tailcam:stream=N743AS`,
    );
  });
});

describe('npm run ivs -- publish-token', () => {
  const arns = ['N743AS', 'N953AS', 'N954AS'].map((id) => `${id}=${arn(`${id}x`)}`).join(',');

  it('issues a PUBLISH-only token for the configured stage and prints the WHIP settings', async () => {
    const { mock, out, err, run } = setup({ AWS_REGION: 'eu-west-1', IVS_STAGE_ARNS: arns });
    mock.on(CreateParticipantTokenCommand).resolves({
      participantToken: {
        token: 'eyJhbGciOiJLTVMifQ.publish.token',
        participantId: 'p-123',
        expirationTime: new Date('2026-11-22T14:00:00Z'),
      },
    });
    expect(await run('publish-token', 'N953AS', '--minutes', '90', '--user-id', 'n953as-obs')).toBe(
      0,
    );
    expect(mock.commandCalls(ListStagesCommand)).toHaveLength(0);
    expect(mock.commandCalls(CreateParticipantTokenCommand)[0]!.args[0].input).toEqual({
      stageArn: arn('N953ASx'),
      userId: 'n953as-obs',
      capabilities: ['PUBLISH'],
      duration: 90,
      attributes: { role: 'encoder', streamId: 'N953AS' },
    });
    expect(out).toEqual([
      'WHIP_URL=https://global.whip.live-video.net',
      'PUBLISH_TOKEN=eyJhbGciOiJLTVMifQ.publish.token',
    ]);
    expect(err.join('\n')).toContain('participant p-123, valid until 2026-11-22T14:00:00.000Z');
    expect(err.join('\n')).toContain('Service: WHIP');
  });

  it('finds the stage by its tags when IVS_STAGE_ARNS is not set, with defaults', async () => {
    const { mock, out, run } = setup();
    mock.on(ListStagesCommand).resolves({ stages: [{ arn: arn('t1'), tags: tagged('N743AS') }] });
    mock.on(CreateParticipantTokenCommand).resolves({ participantToken: { token: 'tok' } });
    expect(await run('publish-token', 'N743AS')).toBe(0);
    expect(mock.commandCalls(CreateParticipantTokenCommand)[0]!.args[0].input).toMatchObject({
      stageArn: arn('t1'),
      userId: 'encoder-N743AS',
      duration: 720,
    });
    expect(out[1]).toBe('PUBLISH_TOKEN=tok');
  });

  it('says to provision first when no stage is tagged for the stream', async () => {
    const { mock, err, run } = setup();
    mock.on(ListStagesCommand).resolves({ stages: [] });
    expect(await run('publish-token', 'N954AS')).toBe(1);
    expect(err).toEqual([
      'No stage is tagged tailcam:stream=N954AS for app "tailcam" in this region: run `npm run ivs -- provision` first.',
    ]);
  });

  it.each([
    [['publish-token'], 'publish-token takes one STREAM_ID'],
    [['publish-token', 'N000XX'], 'Unknown stream "N000XX": one of N743AS, N953AS, N954AS'],
    [
      ['publish-token', 'N743AS', '--minutes', '0'],
      '--minutes must be a whole number from 1 to 20160',
    ],
    [['publish-token', 'N743AS', '--minutes', '20161'], '--minutes must be a whole number'],
    [['provision', 'extra'], 'provision takes no arguments'],
    [['launch'], 'Unknown command "launch"'],
    [['provision', '--colour'], "Unknown option '--colour'"],
  ])('explains bad usage (%j) with exit code 2', async (args, message) => {
    const { mock, err, run } = setup();
    expect(await run(...args)).toBe(2);
    expect(err.join('\n')).toContain(message);
    expect(err.join('\n')).toContain('Usage: npm run ivs -- <command>');
    expect(mock.calls()).toHaveLength(0);
  });
});

describe('npm run ivs: AWS problems in one sentence, no stack trace', () => {
  it('names the missing region before calling AWS', async () => {
    const { mock, err, run } = setup({});
    expect(await run('provision')).toBe(1);
    expect(err).toEqual([
      'AWS_REGION is not set: set it to the region of your stages (e.g. AWS_REGION=us-east-1 in .env) or pass --region.',
    ]);
    expect(mock.calls()).toHaveLength(0);
  });

  it('says how to provide credentials when there are none', async () => {
    const { mock, err, run } = setup();
    const noCredentials = Object.assign(
      new Error('Could not load credentials from any providers'),
      {
        name: 'CredentialsProviderError',
      },
    );
    mock.on(ListStorageConfigurationsCommand).rejects(noCredentials);
    expect(await run('provision')).toBe(1);
    expect(err).toEqual([
      'No AWS credentials found. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or run where an IAM role provides them.',
    ]);
  });

  it('points at the IAM policy when access is denied', async () => {
    const { mock, err, run } = setup();
    mock.on(ListStagesCommand).resolves({ stages: [] });
    mock
      .on(CreateStageCommand)
      .rejects(new AccessDeniedException({ $metadata: {}, message: 'not authorized' }));
    expect(await run('provision')).toBe(1);
    // The storage and its CORS rule were set up first; then the stage was refused.
    expect(err.slice(2)).toEqual([
      'AWS refused Provisioning the stages: the credentials lack that permission (see the IAM policies in docs/deployment.md).',
    ]);
    expect(err.join('\n')).not.toMatch(/\bat .*\(.*:\d+:\d+\)/);
  });
});

describe('npm run ivs as a process', () => {
  it('reports missing credentials from the real AWS credential chain in one line', () => {
    const home = tempDir();
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'server', 'src', 'cli', 'ivs.ts'), 'provision'],
      {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: 30_000,
        // No credentials anywhere: no variables, an empty home, no instance metadata service.
        env: {
          PATH: process.env.PATH,
          HOME: home,
          AWS_REGION: 'eu-west-1',
          AWS_EC2_METADATA_DISABLED: 'true',
          NODE_NO_WARNINGS: '1',
        },
      },
    );
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(
      'No AWS credentials found. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or run where an IAM role provides them.',
    );
  });
});
