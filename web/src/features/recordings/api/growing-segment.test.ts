// The rewind's reads of a segment (decision 0085): a segment begun as it grew is read on from the
// same bytes once finished, for a WebM's finished file is muxed apart and is not those bytes.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setAuthToken } from '@/lib/auth-token';
import type { FeedSegment } from '../lib/rewind-timeline';
import type { RecordedSpan } from './recordings';
import { growingName, readSegment } from './growing-segment';

const span: RecordedSpan = {
  span: '1795974757366',
  startMs: 1_795_974_757_366,
  endMs: 1_795_974_777_366,
  publisher: 'camera',
  mimeType: 'video/webm; codecs="vp8,opus"',
  segments: [],
};

const segment = (name: string, durationMs: number | undefined): FeedSegment => ({
  key: `${span.span}/${name}`,
  span,
  name,
  startMs: span.startMs + 8_700,
  durationMs,
  mimeType: span.mimeType,
});

const fetchSpy = vi.fn<typeof fetch>();

function answer(status: number, body: string, state?: 'writing' | 'complete') {
  fetchSpy.mockResolvedValueOnce(
    new Response(status === 416 ? null : body, {
      status,
      headers: state ? { 'Tailcam-Segment': state } : {},
    }),
  );
}

const asked = () => {
  const [url, init] = fetchSpy.mock.calls.at(-1) ?? [];
  return {
    path: new URL(String(url), 'http://tailcam.test').pathname,
    range: (init?.headers as Record<string, string> | undefined)?.Range,
  };
};

const text = (bytes: ArrayBuffer) => new TextDecoder().decode(bytes);
const signal = new AbortController().signal;

beforeEach(() => {
  setAuthToken('login-token');
  vi.stubGlobal('fetch', fetchSpy);
});

afterEach(() => {
  fetchSpy.mockReset();
  vi.unstubAllGlobals();
});

describe('reading a segment for the rewind', () => {
  it('reads a finished segment begun as it grew on from its .part URL, never its finished file', async () => {
    answer(206, 'rest-of-the-same-bytes', 'complete');
    const read = await readSegment('N743AS', segment('0000008700-4037.webm', 4_037), 1_000, signal);
    expect(asked()).toEqual({
      path: '/api/recordings/N743AS/1795974757366/0000008700.part',
      range: 'bytes=1000-',
    });
    expect(text(read.bytes)).toBe('rest-of-the-same-bytes');
    expect(read.complete).toBe(true);
  });

  it('reads a finished segment not begun whole, by its own name', async () => {
    answer(200, 'the-whole-file');
    const read = await readSegment('N743AS', segment('0000008700-4037.webm', 4_037), 0, signal);
    expect(asked()).toEqual({
      path: '/api/recordings/N743AS/1795974757366/0000008700-4037.webm',
      range: undefined,
    });
    expect(read).toMatchObject({ complete: true });
    expect(text(read.bytes)).toBe('the-whole-file');
  });

  it('takes a 416 as nothing new: the segment whole when the API says complete, still growing when writing', async () => {
    answer(416, '', 'complete');
    const done = await readSegment('N743AS', segment('0000008700.part', undefined), 5_000, signal);
    expect(done.bytes.byteLength).toBe(0);
    expect(done.complete).toBe(true);

    answer(416, '', 'writing');
    const growing = await readSegment(
      'N743AS',
      segment('0000008700.part', undefined),
      5_000,
      signal,
    );
    expect(growing.bytes.byteLength).toBe(0);
    expect(growing.complete).toBe(false);
  });

  it('says the growing copy is gone on a 410, and fails on any other refusal', async () => {
    answer(410, '{"error":"gone"}', 'complete');
    const gone = await readSegment('N743AS', segment('0000008700-4037.webm', 4_037), 1_000, signal);
    expect(gone).toMatchObject({ complete: false, gone: true });

    answer(500, '{"error":"broken"}');
    await expect(
      readSegment('N743AS', segment('0000008700.part', undefined), 0, signal),
    ).rejects.toThrow(/500/);
  });

  it('names the .part of any segment file, and leaves another name alone', () => {
    expect(growingName('0000004677-4023.webm')).toBe('0000004677.part');
    expect(growingName('0000004677-4023.mp4')).toBe('0000004677.part');
    expect(growingName('0000004677.part')).toBe('0000004677.part');
    expect(growingName('playlist.m3u8')).toBe('playlist.m3u8');
  });
});
