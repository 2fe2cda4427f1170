/**
 * Segment previews in the recordings API (decision 0084): the list names a segment's preview
 * when the span's index (`segments.log`) lists it, and not once retention removed its segment;
 * `GET /api/recordings/{aircraft}/{span}/{offset}-{duration}.jpg` serves it as a JPEG with the
 * login token, refuses without one, and answers 400 for a bad name and 404 for one not there.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  previewFileName,
  SEGMENT_INDEX_FILE,
  segmentFileName,
  segmentIndexLine,
  spanName,
} from '@tailcam/protocol/recordings';
import { build, tempDir } from '../test/helpers';

const T0 = Date.UTC(2026, 10, 26, 9, 30, 0);
const SPAN = spanName(T0);
/** Not a real picture: the API serves the bytes as they are. */
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);

/** N743AS: a span of two indexed segments, the first with its preview. */
function recordings(): { root: string; dir: string } {
  const root = tempDir('tailcam-recordings-previews-');
  const dir = join(root, 'N743AS', SPAN);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'span.json'),
    JSON.stringify({ container: 'webm', codecs: 'vp8', publisher: 'camera' }),
  );
  for (const offsetMs of [0, 4000]) {
    const segment = { offsetMs, durationMs: 4000, container: 'webm' } as const;
    const name = segmentFileName(segment);
    writeFileSync(join(dir, name), 'webm bytes');
    appendFileSync(
      join(dir, SEGMENT_INDEX_FILE),
      segmentIndexLine({ change: 'added', name, segment, bytes: 10 }),
    );
  }
  const preview = previewFileName('0000000000-4000.webm');
  writeFileSync(join(dir, preview), JPEG);
  appendFileSync(
    join(dir, SEGMENT_INDEX_FILE),
    segmentIndexLine({ change: 'preview', name: preview, bytes: JPEG.length }),
  );
  return { root, dir };
}

async function signedIn() {
  const { root, dir } = recordings();
  const test = await build({ config: { recordingsDir: root } });
  await test.addUser('alice', 'correct horse');
  const token = await test.login('alice', 'correct horse');
  const get = (url: string, bearer: string | null = token) =>
    test.app.inject({
      method: 'GET',
      url,
      headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
    });
  return { get, dir };
}

describe('segment previews', () => {
  it('are named in the list where the index has one, and leave it with their segment', async () => {
    const { get, dir } = await signedIn();
    const listed = async () => {
      const response = await get('/api/recordings');
      expect(response.statusCode).toBe(200);
      return response.json().aircraft[0]?.spans[0]?.segments;
    };
    expect(await listed()).toEqual([
      {
        name: '0000000000-4000.webm',
        offsetMs: 0,
        durationMs: 4000,
        preview: '0000000000-4000.jpg',
      },
      { name: '0000004000-4000.webm', offsetMs: 4000, durationMs: 4000 },
    ]);
    // Retention's line for the segment takes its preview from the list too.
    appendFileSync(
      join(dir, SEGMENT_INDEX_FILE),
      segmentIndexLine({ change: 'removed', name: '0000000000-4000.webm' }),
    );
    expect(await listed()).toEqual([
      { name: '0000004000-4000.webm', offsetMs: 0, durationMs: 4000 },
    ]);
  });

  it('is served as a JPEG with the login token, private', async () => {
    const { get } = await signedIn();
    const response = await get(`/api/recordings/N743AS/${SPAN}/0000000000-4000.jpg`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/jpeg');
    expect(response.headers['cache-control']).toMatch(/^private/);
    expect(response.rawPayload).toEqual(JPEG);
  });

  it('is refused without a valid login token', async () => {
    const { get } = await signedIn();
    const url = `/api/recordings/N743AS/${SPAN}/0000000000-4000.jpg`;
    expect((await get(url, null)).statusCode).toBe(401);
    expect((await get(url, 'not-a-token')).statusCode).toBe(401);
  });

  it('answers 400 for a name that is no preview’s, and 404 for one not there', async () => {
    const { get } = await signedIn();
    for (const name of [
      '0000000000-4000.jpeg',
      '0-4000.jpg',
      '..%2F0000000000-4000.jpg',
      'a.jpg',
    ]) {
      const response = await get(`/api/recordings/N743AS/${SPAN}/${name}`);
      expect({ name, status: response.statusCode }).toEqual({ name, status: 400 });
    }
    const bad = await get(`/api/recordings/N743AS/${SPAN}/0-4000.jpg`);
    expect(bad.json().error).toContain('its preview {offset}-{duration}.jpg');
    const absent = await get(`/api/recordings/N743AS/${SPAN}/0000004000-4000.jpg`);
    expect(absent.statusCode).toBe(404);
    expect(absent.json().error).toBe('No such preview (it may have expired)');
  });
});
