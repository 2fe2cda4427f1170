/**
 * IVS's recordings (recordings/ivs-recordings.ts and its routes) over S3 faked with
 * aws-sdk-client-mock, laid out as individual participant recording writes it: the list per
 * aircraft in the local list's shape, timed by the event files; playlists whose segments are
 * presigned URLs that expire in minutes; signed-in users only; bad names a 400.
 */
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
  type GetObjectCommandOutput,
} from '@aws-sdk/client-s3';
import { build, testConfig } from '../test/helpers';
import { ivsRecordings, signPlaylist, SIGNED_URL_SECONDS } from './ivs-recordings';

const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' };
const stageArns = { N743AS: 'arn:aws:ivs:eu-west-1:123456789012:stage/AbCd1234' };
const T0 = Date.UTC(2026, 10, 26, 9, 30, 0);
const PREFIX = 'AbCd1234/st-One/PaRt1/';

const MULTIVARIANT = '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2500000\nhigh/playlist.m3u8\n';
const RENDITION = [
  '#EXTM3U',
  '#EXT-X-VERSION:7',
  '#EXT-X-TARGETDURATION:6',
  '#EXT-X-MAP:URI="init.mp4"',
  '#EXTINF:6.0,',
  '1.mp4',
  '#EXTINF:6.0,',
  'https://elsewhere.example/2.mp4',
  '#EXTINF:4.2,',
  '3.mp4',
  '#EXT-X-ENDLIST',
].join('\n');

/** A recording still being written: an event playlist, without its end yet. */
const GROWING = [
  '#EXTM3U',
  '#EXT-X-VERSION:7',
  '#EXT-X-TARGETDURATION:6',
  '#EXT-X-PLAYLIST-TYPE:EVENT',
  '#EXT-X-MAP:URI="init.mp4"',
  '#EXTINF:6.0,',
  '1.mp4',
  '#EXTINF:6.0,',
  '2.mp4',
].join('\n');

function text(value: string): GetObjectCommandOutput['Body'] {
  return { transformToString: async () => value } as unknown as GetObjectCommandOutput['Body'];
}

function setUp() {
  const client = new S3Client({ region: 'eu-west-1', credentials });
  const s3 = mockClient(client);
  let nowMs = T0 + 3_600_000;
  s3.on(ListObjectsV2Command, { Prefix: 'AbCd1234/', Delimiter: '/' }).resolves({
    CommonPrefixes: [{ Prefix: 'AbCd1234/st-One/' }, { Prefix: 'AbCd1234/../' }],
  });
  s3.on(ListObjectsV2Command, { Prefix: 'AbCd1234/st-One/', Delimiter: '/' })
    .resolvesOnce({
      CommonPrefixes: [{ Prefix: PREFIX }],
      IsTruncated: true,
      NextContinuationToken: 'next',
    })
    .resolves({ CommonPrefixes: [{ Prefix: 'AbCd1234/st-One/PaRt2/' }] });
  s3.on(ListObjectsV2Command, { Prefix: `${PREFIX}events/` }).resolves({
    Contents: [
      { Key: `${PREFIX}events/recording-started.json`, LastModified: new Date(T0 + 60_000) },
      { Key: `${PREFIX}events/recording-ended.json`, LastModified: new Date(T0 + 660_000) },
    ],
  });
  // The second publisher is still on: no end yet.
  s3.on(ListObjectsV2Command, { Prefix: 'AbCd1234/st-One/PaRt2/events/' }).resolves({
    Contents: [
      {
        Key: 'AbCd1234/st-One/PaRt2/events/recording-started.json',
        LastModified: new Date(T0),
      },
    ],
  });
  // Any other key: none (the specific answers below come after the default, as the mock wants).
  s3.on(GetObjectCommand).rejects(new NoSuchKey({ $metadata: {}, message: 'no such key' }));
  s3.on(GetObjectCommand, { Key: `${PREFIX}media/hls/multivariant.m3u8` }).resolves({
    Body: text(MULTIVARIANT),
  });
  s3.on(GetObjectCommand, { Key: `${PREFIX}media/hls/high/playlist.m3u8` }).resolves({
    Body: text(RENDITION),
  });
  s3.on(GetObjectCommand, {
    Key: 'AbCd1234/st-One/PaRt2/media/hls/high/playlist.m3u8',
  }).resolves({ Body: text(GROWING) });
  const recordings = ivsRecordings({
    s3: client,
    bucket: 'tc-rec',
    stageArns,
    now: () => nowMs,
  });
  return { s3, recordings, advance: (ms: number) => (nowMs += ms) };
}

describe("IVS's recordings", () => {
  it('lists each publisher recorded per aircraft, timed by its events, in the local shape', async () => {
    const { s3, recordings } = setUp();
    const list = await recordings.list();
    expect(list).toEqual([
      {
        stageId: 'N743AS',
        spans: [
          expect.objectContaining({
            span: 'st-One/PaRt2',
            startMs: T0,
            // Still recording: up to now, and said to be (its playlist grows).
            endMs: T0 + 3_600_000,
            inProgress: true,
          }),
          {
            span: 'st-One/PaRt1',
            start: '2026-11-26T09:31:00.000Z',
            end: '2026-11-26T09:41:00.000Z',
            startMs: T0 + 60_000,
            endMs: T0 + 660_000,
            publisher: 'encoder',
            mimeType: 'application/vnd.apple.mpegurl',
            segments: [],
            hls: '/api/recordings/ivs/N743AS/st-One/PaRt1/multivariant.m3u8',
          },
        ],
      },
    ]);
    // A folder name IVS would not write (`..`) is never looked into; the second page was read.
    const prefixes = s3.commandCalls(ListObjectsV2Command).map((c) => c.args[0].input.Prefix);
    expect(prefixes).not.toContain('AbCd1234/../');
    expect(prefixes.filter((p) => p === 'AbCd1234/st-One/')).toHaveLength(2);
    // Many viewers, one walk of the bucket for a while.
    const calls = s3.commandCalls(ListObjectsV2Command).length;
    await recordings.list();
    expect(s3.commandCalls(ListObjectsV2Command)).toHaveLength(calls);
  });

  it('gives playlists whose segments are presigned URLs that expire in minutes', async () => {
    const { recordings } = setUp();
    expect(await recordings.playlist('N743AS', 'st-One', 'PaRt1', 'multivariant.m3u8')).toBe(
      MULTIVARIANT,
    );
    const signed = (await recordings.playlist('N743AS', 'st-One', 'PaRt1', 'high/playlist.m3u8'))!;
    const urls = signed.split('\n').filter((line) => line.startsWith('https://'));
    // 1.mp4 and 3.mp4; the absolute URL is not IVS's and is left out.
    expect(urls).toHaveLength(2);
    for (const [index, name] of ['1.mp4', '3.mp4'].entries()) {
      const url = new URL(urls[index]!);
      expect(url.origin).toBe('https://tc-rec.s3.eu-west-1.amazonaws.com');
      expect(url.pathname).toBe(`/${PREFIX}media/hls/high/${name}`);
      expect(url.searchParams.get('X-Amz-Expires')).toBe(String(SIGNED_URL_SECONDS));
      expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(SIGNED_URL_SECONDS).toBeLessThanOrEqual(900);
    expect(signed).toMatch(
      /#EXT-X-MAP:URI="https:\/\/tc-rec\.s3\.eu-west-1\.amazonaws\.com\/AbCd1234\/st-One\/PaRt1\/media\/hls\/high\/init\.mp4\?/,
    );
    expect(signed).not.toContain('elsewhere.example');
    expect(await recordings.playlist('N743AS', 'st-One', 'Gone', 'multivariant.m3u8')).toBe(
      undefined,
    );
    await expect(recordings.playlist('N743AS', '..', 'PaRt1', 'multivariant.m3u8')).rejects.toThrow(
      /session/,
    );
    await expect(
      recordings.playlist('N743AS', 'st-One', 'PaRt1', '../../x/playlist.m3u8'),
    ).rejects.toThrow();
  });

  it('gives a recording still being written as its playlist is now: growing, without an end', async () => {
    const { recordings } = setUp();
    const signed = (await recordings.playlist('N743AS', 'st-One', 'PaRt2', 'high/playlist.m3u8'))!;
    const lines = signed.split('\n');
    // Its tags as IVS wrote them (EVENT: segments only added), each segment and the map signed.
    expect(lines.slice(0, 4)).toEqual(GROWING.split('\n').slice(0, 4));
    expect(lines.filter((line) => line.includes('/PaRt2/media/hls/high/'))).toHaveLength(3);
    expect(signed).not.toContain('#EXT-X-ENDLIST');
  });

  it('signs only relative names inside the folder', async () => {
    const out = await signPlaylist(
      '#EXTM3U\na/1.mp4\n../2.mp4\n/abs.mp4\n',
      async (r) => `S(${r})`,
    );
    expect(out).toBe('#EXTM3U\nS(a/1.mp4)\n');
  });

  it('are for signed-in users, through the API, and a bad name is a 400', async () => {
    const { recordings } = setUp();
    const ivsConfig = { ...testConfig().ivs, region: 'eu-west-1', recordingsBucket: 'tc-rec' };
    const test = await build({
      config: { stageProvider: 'ivs', ivs: ivsConfig },
      deps: { ivsRecordings: recordings },
    });
    await test.addUser('alice', 'correct horse');
    const token = await test.login('alice', 'correct horse');
    const get = (url: string, bearer: string | null = token) =>
      test.app.inject({
        url,
        headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
      });
    const playlist = '/api/recordings/ivs/N743AS/st-One/PaRt1/high/playlist.m3u8';

    expect((await get('/api/recordings', null)).statusCode).toBe(401);
    expect((await get(playlist, null)).statusCode).toBe(401);
    expect((await get(playlist, 'forged')).statusCode).toBe(401);

    const list = await get('/api/recordings');
    expect(list.statusCode).toBe(200);
    expect(list.json().aircraft[0].spans[1].hls).toBe(
      '/api/recordings/ivs/N743AS/st-One/PaRt1/multivariant.m3u8',
    );
    const answer = await get(playlist);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('application/vnd.apple.mpegurl');
    expect(answer.headers['cache-control']).toBe('private, no-store');
    expect(answer.body).toContain('X-Amz-Signature=');

    const bad = await get('/api/recordings/ivs/N743AS/st-One/PaRt1/secrets.txt');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/playlist/);
    expect((await get('/api/recordings/ivs/NOPE/st-One/PaRt1/multivariant.m3u8')).statusCode).toBe(
      400,
    );
    expect((await get('/api/recordings/ivs/N743AS/st-One/Gone/multivariant.m3u8')).statusCode).toBe(
      404,
    );
  });
});
