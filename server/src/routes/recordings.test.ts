/**
 * The recordings routes (routes/recordings.ts) over a recordings directory laid out as the
 * recorder lays it (protocol/src/recordings.ts), its segments muxed by mediabunny as the
 * recorder's are: the listing per aircraft in UTC, a segment for signed-in users only, a download
 * remuxed into one file that mediabunny's demuxer reads back, and clear 400s for bad names.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ALL_FORMATS,
  BufferSource,
  BufferTarget,
  EncodedPacket,
  EncodedPacketSink,
  EncodedVideoPacketSource,
  Input,
  Output,
  WebMOutputFormat,
} from 'mediabunny';
import { segmentFileName, spanName } from '@tailcam/protocol/recordings';
import { build, tempDir } from '../test/helpers';
import { endingAfter } from './recordings';

const T0 = Date.UTC(2026, 10, 26, 9, 30, 0);
/** A VP8 key frame's first bytes (frame tag, start code, 320x180), then a delta frame's. */
const KEY = Uint8Array.from([0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00, 1, 2]);
const DELTA = Uint8Array.from([0x51, 0x02, 0x00, 7, 7, 7]);

/** A 2 s WebM segment of 10 fps VP8, timestamps from 0, as the recorder writes one. */
async function segment(): Promise<Buffer> {
  const target = new BufferTarget();
  const output = new Output({ format: new WebMOutputFormat(), target });
  const video = new EncodedVideoPacketSource('vp8');
  output.addVideoTrack(video);
  await output.start();
  for (let index = 0; index < 20; index += 1) {
    const packet = new EncodedPacket(
      index === 0 ? KEY : DELTA,
      index === 0 ? 'key' : 'delta',
      index / 10,
      0.1,
    );
    await video.add(
      packet,
      index === 0
        ? { decoderConfig: { codec: 'vp8', codedWidth: 320, codedHeight: 180 } }
        : undefined,
    );
  }
  await output.finalize();
  return Buffer.from(target.buffer ?? new ArrayBuffer(0));
}

/** N743AS: one span of 3 segments, a 10 s gap, 1 more; N953AS: one span of 1 segment. */
async function recordings(): Promise<string> {
  const root = tempDir('tailcam-recordings-');
  const bytes = await segment();
  const write = (stageId: string, startMs: number, offsets: number[]) => {
    const dir = join(root, stageId, spanName(startMs));
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'span.json'),
      JSON.stringify({ container: 'webm', codecs: 'vp8', publisher: 'camera' }),
    );
    for (const offsetMs of offsets) {
      writeFileSync(
        join(dir, segmentFileName({ offsetMs, durationMs: 2000, container: 'webm' })),
        bytes,
      );
    }
    writeFileSync(join(dir, '0000090000.part'), 'unfinished');
  };
  write('N743AS', T0, [0, 2000, 4000, 16_000]);
  write('N953AS', T0 + 60_000, [500]);
  return root;
}

async function signedIn() {
  const recordingsDir = await recordings();
  const test = await build({ config: { recordingsDir } });
  await test.addUser('alice', 'correct horse');
  const token = await test.login('alice', 'correct horse');
  const get = (url: string, bearer: string | null = token) =>
    test.app.inject({
      method: 'GET',
      url,
      headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
    });
  return { ...test, recordingsDir, get };
}

const SPAN = spanName(T0);

describe('GET /api/recordings', () => {
  it('lists each aircraft’s spans in UTC, a gap splitting a span, unfinished segments left out', async () => {
    const { get } = await signedIn();
    const response = await get('/api/recordings');
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json();
    expect(body.aircraft.map((a: { stageId: string }) => a.stageId)).toEqual(['N743AS', 'N953AS']);
    expect(body.aircraft[0].spans).toEqual([
      {
        span: SPAN,
        start: '2026-11-26T09:30:00.000Z',
        end: '2026-11-26T09:30:06.000Z',
        startMs: T0,
        endMs: T0 + 6000,
        publisher: 'camera',
        mimeType: 'video/webm; codecs="vp8"',
        segments: [
          { name: '0000000000-2000.webm', offsetMs: 0, durationMs: 2000 },
          { name: '0000002000-2000.webm', offsetMs: 2000, durationMs: 2000 },
          { name: '0000004000-2000.webm', offsetMs: 4000, durationMs: 2000 },
        ],
      },
      expect.objectContaining({
        span: SPAN,
        start: '2026-11-26T09:30:16.000Z',
        segments: [{ name: '0000016000-2000.webm', offsetMs: 0, durationMs: 2000 }],
      }),
    ]);
    expect(body.aircraft[1].spans[0].start).toBe('2026-11-26T09:31:00.500Z');
  });

  it('is for signed-in users only', async () => {
    const { get } = await signedIn();
    for (const url of [
      '/api/recordings',
      `/api/recordings/N743AS/${SPAN}/0000000000-2000.webm`,
      `/api/recordings/N743AS/${SPAN}/download`,
    ]) {
      expect((await get(url, null)).statusCode).toBe(401);
      expect((await get(url, 'not-a-token')).statusCode).toBe(401);
    }
  });
});

describe('GET /api/recordings/{aircraft}/{span}/{segment}', () => {
  it('serves the segment as it is, private', async () => {
    const { get, recordingsDir } = await signedIn();
    const response = await get(`/api/recordings/N743AS/${SPAN}/0000002000-2000.webm`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('video/webm');
    expect(response.headers['cache-control']).toBe('private, max-age=3600');
    expect(response.rawPayload).toEqual(
      readFileSync(join(recordingsDir, 'N743AS', SPAN, '0000002000-2000.webm')),
    );
  });

  it('refuses names outside the layout with a 400 that says what a name is, and touches no file', async () => {
    const { get } = await signedIn();
    const cases: [string, number, RegExp][] = [
      // Encoded slashes are refused before any route (the request guard).
      [`/api/recordings/N743AS/${SPAN}/..%2F..%2F..%2Fetc%2Fpasswd`, 400, /Malformed URL/],
      [`/api/recordings/..%2Fetc/${SPAN}/0000000000-2000.webm`, 400, /Malformed URL/],
      // A dot-segment is resolved by the router before any route: no such route.
      [`/api/recordings/N743AS/${SPAN}/..`, 404, /Not found/],
      [`/api/recordings/N743AS/${SPAN}/90000.part`, 400, /segment is named/],
      [`/api/recordings/N743AS/${SPAN}/span.json`, 400, /segment is named/],
      [`/api/recordings/N743AS/..../0000000000-2000.webm`, 400, /span is named/],
      [`/api/recordings/N000XX/${SPAN}/0000000000-2000.webm`, 400, /Unknown aircraft/],
      [`/api/recordings/N743AS/${SPAN}/0000000001-2000.webm`, 404, /No such segment/],
      [`/api/recordings/N743AS/${SPAN}/download?from=yesterday`, 400, /Unix milliseconds/],
      [`/api/recordings/N743AS/${SPAN}/download?from=${T0 + 10}&to=${T0}`, 400, /after/],
    ];
    for (const [url, status, message] of cases) {
      const response = await get(url);
      expect({ url, status: response.statusCode }).toEqual({ url, status });
      expect(response.json().error).toMatch(message);
    }
  });
});

describe('GET /api/recordings/{aircraft}/{span}/download', () => {
  it('remuxes a stretch into one WebM whose frames run on without a gap', async () => {
    const { get } = await signedIn();
    const response = await get(
      `/api/recordings/N743AS/${SPAN}/download?from=${T0 + 2500}&to=${T0 + 5000}`,
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-disposition']).toBe(
      'attachment; filename="N743AS-2026-11-26T09-30-02-000Z.webm"',
    );
    expect(response.headers['cache-control']).toBe('private, no-store');
    const input = new Input({
      source: new BufferSource(response.rawPayload),
      formats: ALL_FORMATS,
    });
    const track = await input.getPrimaryVideoTrack();
    if (!track) throw new Error('no video in the download');
    const packets: [string, number][] = [];
    for await (const packet of new EncodedPacketSink(track).packets()) {
      packets.push([packet.type, Math.round(packet.timestamp * 1000)]);
    }
    // Two segments (2000 and 4000), 20 frames each, one after the other.
    expect(packets).toHaveLength(40);
    expect(packets[0]).toEqual(['key', 0]);
    expect(packets[20]).toEqual(['key', 2000]);
    expect(packets.at(-1)).toEqual(['delta', 3900]);
  });
});

describe('a run cut to what ends after an instant (?since=)', () => {
  const run = {
    span: '1795900000000',
    start: new Date(1_795_900_000_000).toISOString(),
    end: new Date(1_795_900_012_000).toISOString(),
    startMs: 1_795_900_000_000,
    endMs: 1_795_900_012_000,
    publisher: 'camera' as const,
    mimeType: 'video/webm; codecs="vp8,opus"',
    segments: [0, 4000, 8000].map((offsetMs) => ({
      name: `${offsetMs}.webm`,
      offsetMs,
      durationMs: 4000,
    })),
  };

  it('starts at its first segment ending after it, offsets from there, whole when all end after', () => {
    const cut = endingAfter(run, run.startMs + 5000);
    expect(cut).toMatchObject({ startMs: run.startMs + 4000, endMs: run.endMs });
    expect(cut?.start).toBe(new Date(run.startMs + 4000).toISOString());
    expect(cut?.segments).toEqual([
      { name: '4000.webm', offsetMs: 0, durationMs: 4000 },
      { name: '8000.webm', offsetMs: 4000, durationMs: 4000 },
    ]);
    expect(endingAfter(run, run.startMs - 1)).toBe(run);
    expect(endingAfter(run, run.endMs)).toBeUndefined();
  });
});
