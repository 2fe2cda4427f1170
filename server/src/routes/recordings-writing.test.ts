/**
 * The segment being written (decision 0085): the list names it per aircraft (`writing`, from the
 * span's index), `?stage=` lists one aircraft, and `{offsetMs}.part` serves the segment as it is
 * now, from any byte on, saying `writing` until the recorder has renamed it and `complete` after,
 * so what a reader took in pieces is the finished file byte for byte.
 */
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  grownFileName,
  partFileName,
  SEGMENT_INDEX_FILE,
  segmentFileName,
  segmentIndexLine,
  spanName,
} from '@tailcam/protocol/recordings';
import { build, tempDir } from '../test/helpers';

const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);
const SPAN = spanName(T0);
const WRITING = partFileName(4000);
const URL = `/api/recordings/N743AS/${SPAN}/${WRITING}`;

/**
 * N743AS: a span with one finished segment and one being written (its first 1,000 bytes), as the
 * recorder writes them: an MP4's `.part` becomes the finished file; a WebM's stays beside the
 * finished file, which has other bytes (its Clusters' sizes known).
 */
async function recording(container: 'webm' | 'mp4' = 'webm') {
  const FINISHED = segmentFileName({ offsetMs: 0, durationMs: 4000, container });
  const root = tempDir('tailcam-recordings-writing-');
  const dir = join(root, 'N743AS', SPAN);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'span.json'),
    JSON.stringify({
      container,
      codecs: container === 'webm' ? 'vp8,opus' : 'avc1.42c01f,opus',
      publisher: 'camera',
    }),
  );
  const index = join(dir, SEGMENT_INDEX_FILE);
  const line = (entry: Parameters<typeof segmentIndexLine>[0]) =>
    appendFileSync(index, segmentIndexLine(entry));
  line({ change: 'writing', name: partFileName(0), offsetMs: 0 });
  writeFileSync(join(dir, FINISHED), Buffer.alloc(500, 1));
  line({ change: 'writing', name: WRITING, offsetMs: 4000 });
  line({
    change: 'added',
    name: FINISHED,
    segment: { offsetMs: 0, durationMs: 4000, container },
    bytes: 500,
  });
  // The whole segment the recorder will have written: bytes 0..2999, each its own.
  const whole = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 7) % 251));
  const part = join(dir, WRITING);
  writeFileSync(part, whole.subarray(0, 1000));
  const test = await build({ config: { recordingsDir: root } });
  await test.addUser('alice', 'correct horse');
  const token = await test.login('alice', 'correct horse');
  const get = (url: string, headers: Record<string, string> = {}, bearer: string | null = token) =>
    test.app.inject({
      method: 'GET',
      url,
      headers: { ...headers, ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }) },
    });
  return {
    get,
    root,
    dir,
    whole,
    FINISHED,
    /** The recorder writes on: bytes up to `end`. */
    grow: (end: number) => appendFileSync(part, whole.subarray(readFileSync(part).length, end)),
    /** The recorder finishes it: the rest, the finished file, the index line. */
    finish: () => {
      appendFileSync(part, whole.subarray(readFileSync(part).length));
      const name = segmentFileName({ offsetMs: 4000, durationMs: 4000, container });
      if (container === 'mp4') {
        renameSync(part, join(dir, name));
      } else {
        renameSync(part, join(dir, grownFileName(4000)));
        writeFileSync(join(dir, name), Buffer.alloc(3100, 9));
      }
      line({
        change: 'added',
        name,
        segment: { offsetMs: 4000, durationMs: 4000, container },
        bytes: container === 'mp4' ? whole.length : 3100,
      });
      return name;
    },
  };
}

describe('GET /api/recordings: the segment being written', () => {
  it('names it per aircraft, and no longer once it is finished', async () => {
    const { get, finish } = await recording();
    const body = (await get('/api/recordings')).json();
    expect(body.aircraft).toEqual([
      {
        stageId: 'N743AS',
        spans: [expect.objectContaining({ span: SPAN, startMs: T0, endMs: T0 + 4000 })],
        writing: { span: SPAN, offsetMs: 4000, startMs: T0 + 4000, name: WRITING },
      },
    ]);
    finish();
    const after = (await get('/api/recordings')).json();
    expect(after.aircraft[0].writing).toBeUndefined();
    expect(after.aircraft[0].spans[0].endMs).toBe(T0 + 8000);
  });

  it('lists an aircraft whose first segment is still being written, with no span yet', async () => {
    const { get, root } = await recording();
    const dir = join(root, 'N953AS', spanName(T0 + 60_000));
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'span.json'),
      JSON.stringify({ container: 'webm', codecs: 'vp8', publisher: 'camera' }),
    );
    appendFileSync(
      join(dir, SEGMENT_INDEX_FILE),
      segmentIndexLine({ change: 'writing', name: partFileName(0), offsetMs: 0 }),
    );
    writeFileSync(join(dir, partFileName(0)), 'the first bytes');
    const body = (await get('/api/recordings?stage=N953AS')).json();
    expect(body.aircraft).toEqual([
      {
        stageId: 'N953AS',
        spans: [],
        writing: {
          span: spanName(T0 + 60_000),
          offsetMs: 0,
          startMs: T0 + 60_000,
          name: partFileName(0),
        },
      },
    ]);
  });

  it('leaves out a killed recorder’s segment (in the index, its .part removed)', async () => {
    const { get, dir } = await recording();
    rmSync(join(dir, WRITING));
    const body = (await get('/api/recordings')).json();
    expect(body.aircraft[0].stageId).toBe('N743AS');
    expect(body.aircraft[0].writing).toBeUndefined();
  });

  it('lists one aircraft with ?stage=, and refuses an unknown one with a 400', async () => {
    const { get } = await recording();
    expect((await get('/api/recordings?stage=N743AS')).json().aircraft).toHaveLength(1);
    expect((await get('/api/recordings?stage=N953AS')).json()).toEqual({ aircraft: [] });
    for (const stage of ['N000XX', '', '..%2FN743AS']) {
      const response = await get(`/api/recordings?stage=${stage}`);
      expect({ stage, status: response.statusCode }).toEqual({ stage, status: 400 });
      expect(response.json().error).toMatch(/Unknown aircraft/);
    }
  });
});

describe('GET /api/recordings/{aircraft}/{span}/{offsetMs}.part', () => {
  it.each(['webm', 'mp4'] as const)(
    '%s: serves what is written so far, then from any byte on, writing and then complete',
    async (container) => {
      const { get, grow, finish, whole } = await recording(container);
      const first = await get(URL);
      expect(first.statusCode).toBe(200);
      expect(first.headers['tailcam-segment']).toBe('writing');
      expect(first.headers['cache-control']).toBe('private, no-store');
      expect(first.headers['content-type']).toBe(`video/${container}`);
      expect(first.rawPayload).toEqual(whole.subarray(0, 1000));

      // Nothing new yet: 416 with what there is.
      const none = await get(URL, { range: 'bytes=1000-' });
      expect(none.statusCode).toBe(416);
      expect(none.headers['content-range']).toBe('bytes */1000');
      expect(none.headers['tailcam-segment']).toBe('writing');

      grow(1800);
      const more = await get(URL, { range: 'bytes=1000-' });
      expect(more.statusCode).toBe(206);
      expect(more.headers['content-range']).toBe('bytes 1000-1799/*');
      expect(more.headers['tailcam-segment']).toBe('writing');
      expect(more.rawPayload).toEqual(whole.subarray(1000, 1800));

      const name = finish();
      const rest = await get(URL, { range: 'bytes=1800-' });
      expect(rest.statusCode).toBe(206);
      expect(rest.headers['tailcam-segment']).toBe('complete');
      expect(rest.headers['tailcam-segment-name']).toBe(name);
      expect(rest.headers['cache-control']).toBe('private, max-age=3600');
      expect(rest.headers['content-range']).toBe(`bytes 1800-2999/3000`);
      // The pieces a reader took are the finished file, byte for byte.
      expect(Buffer.concat([first.rawPayload, more.rawPayload, rest.rawPayload])).toEqual(whole);
      const end = await get(URL, { range: 'bytes=3000-' });
      expect(end.statusCode).toBe(416);
      expect(end.headers['tailcam-segment']).toBe('complete');
      expect(end.headers['content-range']).toBe('bytes */3000');
    },
  );

  it('sends a reader of a finished WebM whose growing copy is gone to the finished file (410)', async () => {
    const { get, finish, dir } = await recording();
    const name = finish();
    rmSync(join(dir, grownFileName(4000)));
    const response = await get(URL, { range: 'bytes=1000-' });
    expect(response.statusCode).toBe(410);
    expect(response.headers['tailcam-segment-name']).toBe(name);
    expect(response.json().error).toMatch(/finished/);
  });

  it('serves a finished MP4 by its offset too, whole without a Range', async () => {
    const { get, FINISHED } = await recording('mp4');
    const response = await get(`/api/recordings/N743AS/${SPAN}/${partFileName(0)}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['tailcam-segment']).toBe('complete');
    expect(response.headers['tailcam-segment-name']).toBe(FINISHED);
    expect(response.rawPayload).toEqual(Buffer.alloc(500, 1));
  });

  it('lists with ?since= only the segments that end after it, as runs starting there', async () => {
    const { get } = await recording();
    const all = (await get('/api/recordings?stage=N743AS')).json();
    expect(all.aircraft[0].spans).toHaveLength(1);
    const later = await get(`/api/recordings?stage=N743AS&since=${T0 + 4000}`);
    expect(later.statusCode).toBe(200);
    // The one finished segment ends at T0 + 4 s: nothing of it; the one being written stays.
    expect(later.json().aircraft[0]).toMatchObject({ spans: [], writing: { startMs: T0 + 4000 } });
    const during = (await get(`/api/recordings?stage=N743AS&since=${T0 + 1000}`)).json();
    expect(during.aircraft[0].spans).toEqual(all.aircraft[0].spans);
    const bad = await get('/api/recordings?since=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'since must be a time in Unix milliseconds (UTC)' });
  });

  it('is for signed-in users only', async () => {
    const { get } = await recording();
    expect((await get(URL, {}, null)).statusCode).toBe(401);
    expect((await get(URL, {}, 'not-a-token')).statusCode).toBe(401);
  });

  it('refuses bad names and ranges with a 400 that says what is wrong, unknown offsets with a 404', async () => {
    const { get } = await recording();
    const cases: [string, Record<string, string>, number, RegExp][] = [
      [`/api/recordings/N743AS/${SPAN}/4000.part`, {}, 400, /segment is named/],
      [`/api/recordings/N743AS/${SPAN}/0000004000.part.webm`, {}, 400, /segment is named/],
      [`/api/recordings/N000XX/${SPAN}/${WRITING}`, {}, 400, /Unknown aircraft/],
      [`/api/recordings/N743AS/123/${WRITING}`, {}, 400, /span is named/],
      [URL, { range: 'bytes=-500' }, 400, /Range must be/],
      [URL, { range: 'bytes=0-10,20-30' }, 400, /Range must be/],
      [URL, { range: 'lines=1-' }, 400, /Range must be/],
      [`/api/recordings/N743AS/${SPAN}/${partFileName(8000)}`, {}, 404, /No such segment/],
      [`/api/recordings/N743AS/${spanName(T0 + 1)}/${WRITING}`, {}, 404, /No such segment/],
    ];
    for (const [url, headers, status, message] of cases) {
      const response = await get(url, headers);
      expect({ url, headers, status: response.statusCode }).toEqual({ url, headers, status });
      expect(response.json().error).toMatch(message);
      expect(response.body).not.toMatch(/\/tmp\/|at .*\.ts/);
    }
  });
});
