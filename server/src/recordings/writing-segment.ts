/**
 * The segment being written, served as it grows (docs/decisions/0085-the-segment-being-written-is-served.md).
 * The recorder appends to `{offsetMs}.part` only, so the bytes a reader had stay true: it asks for
 * the rest with `Range: bytes=N-`. Once the segment is finished the same name answers `complete`
 * with the rest of the same bytes (an MP4's `.part` renamed `{offsetMs}-{durationMs}.mp4`; a
 * WebM's `.part` renamed `{offsetMs}.grown`, kept seconds beside its finished file), so a reader
 * that began on the `.part` ends it without starting over.
 *
 * Which segment is being written comes from the span's index (`*` lines, protocol/src/recordings.ts)
 * that the list reads anyway; the one `.part` it names is stat'ed to leave out a killed recorder's.
 */
import { open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import {
  grownFileName,
  partFileName,
  parseSegmentFileName,
  SEGMENT_NAME_HEADER,
  SEGMENT_STATE_HEADER,
  spanName,
  type SegmentContainer,
  type SegmentState,
} from '@tailcam/protocol/recordings';
import type { StoredSpan } from '@tailcam/protocol/recordings-store';
import { HttpError } from '../http/errors';
import type { LocalRecordingsIndex } from './local-recordings-index';

/** What the list says of an aircraft's segment being written. */
export interface WritingSegment {
  /** Its span directory (13 digits). */
  span: string;
  /** From the span directory's start (the number in its name), ms. */
  offsetMs: number;
  /** Its start, Unix ms (UTC). */
  startMs: number;
  /** `{offsetMs}.part`: the URL's last part. */
  name: string;
}

/**
 * The segment being written among one aircraft's `spans` (as `index.read` returned them), or
 * undefined. At most one stat: the newest span's candidate (one recorder writes one span of an
 * aircraft at a time; an older candidate is a killed recorder's).
 */
export async function findWritingSegment(
  index: LocalRecordingsIndex,
  spans: StoredSpan[],
): Promise<WritingSegment | undefined> {
  for (const stored of [...spans].sort((a, b) => b.startMs - a.startMs)) {
    const offsetMs = index.writingIn(stored);
    if (offsetMs === undefined) continue;
    const name = partFileName(offsetMs);
    const found = await stat(join(stored.dir, name)).catch(() => undefined);
    if (!found?.isFile()) return undefined;
    return { span: spanName(stored.startMs), offsetMs, startMs: stored.startMs + offsetMs, name };
  }
  return undefined;
}

/** A byte range asked for: `bytes=N-` or `bytes=N-M`. */
export interface ByteRange {
  start: number;
  end: number | undefined;
}

export function parseByteRange(header: string | undefined): ByteRange | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d{1,15})-(\d{1,15})?$/.exec(header.trim());
  if (!match) throw new HttpError(400, 'Range must be bytes=N- or bytes=N-M (one range)');
  const start = Number(match[1]);
  const end = match[2] === undefined ? undefined : Number(match[2]);
  if (end !== undefined && end < start) {
    throw new HttpError(400, 'Range must be bytes=N- or bytes=N-M (one range)');
  }
  return { start, end };
}

export interface SegmentAnswer {
  status: 200 | 206 | 416;
  state: SegmentState;
  /** The finished segment's name, when complete. */
  finishedName: string | undefined;
  /** From the span's description; undefined when it has none. */
  container: SegmentContainer | undefined;
  headers: Record<string, string>;
  body: Readable | string;
}

/**
 * The segment that starts at `offsetMs` in `spanDir`, from `range.start` on, as the recorder wrote
 * it while it grew: its `.part` while being written; once finished, for MP4 the finished file
 * (the `.part` renamed), for WebM the `.part` kept a while as `.grown` beside the finished file,
 * which was muxed apart with its sizes (local-stage/src/recorder/segment.ts). Undefined when there
 * is no such segment; an HttpError 410 naming the finished file when the WebM `.part` is gone.
 */
export async function readSegmentAt(
  index: LocalRecordingsIndex,
  stageId: string,
  span: string,
  spanDir: string,
  offsetMs: number,
  range: ByteRange | undefined,
): Promise<SegmentAnswer | undefined> {
  const partPath = join(spanDir, partFileName(offsetMs));
  const indexed = await finishedIn(index, stageId, span, offsetMs);
  const container = indexed.container;
  if (indexed.name) return complete(indexed.name, container, spanDir, offsetMs, range);
  // The handle reads the same file after a rename: what it has is a prefix of what it becomes.
  // A `.grown` with no `+` line yet is whole but not yet said to be: the next read says so.
  const part =
    (await open(partPath, 'r').catch(() => undefined)) ??
    (await open(join(spanDir, grownFileName(offsetMs)), 'r').catch(() => undefined));
  if (part) return answer(part, 'writing', undefined, container, range);
  // Finished since the index was read: its `+` line may not be written yet (an MP4's rename
  // comes first).
  const finished =
    (await finishedIn(index, stageId, span, offsetMs)).name ??
    (await readdir(spanDir).catch(() => [] as string[])).find(
      (name) => parseSegmentFileName(name)?.offsetMs === offsetMs,
    );
  return finished ? complete(finished, container, spanDir, offsetMs, range) : undefined;
}

async function complete(
  finishedName: string,
  container: SegmentContainer | undefined,
  spanDir: string,
  offsetMs: number,
  range: ByteRange | undefined,
): Promise<SegmentAnswer | undefined> {
  if (parseSegmentFileName(finishedName)?.container === 'mp4') {
    const file = await open(join(spanDir, finishedName), 'r').catch(() => undefined);
    return file && answer(file, 'complete', finishedName, container, range);
  }
  const grown = await open(join(spanDir, grownFileName(offsetMs)), 'r').catch(() => undefined);
  if (grown) return answer(grown, 'complete', finishedName, container, range);
  throw new HttpError(
    410,
    `That segment is finished and the copy written as it grew is gone: fetch ${finishedName}`,
    { [SEGMENT_NAME_HEADER]: finishedName, [SEGMENT_STATE_HEADER]: 'complete' },
  );
}

async function finishedIn(
  index: LocalRecordingsIndex,
  stageId: string,
  span: string,
  offsetMs: number,
): Promise<{ name: string | undefined; container: SegmentContainer | undefined }> {
  const [stored] = await index.read(stageId, span);
  return {
    name: stored?.segments.find((segment) => segment.offsetMs === offsetMs)?.name,
    container: stored?.meta?.container,
  };
}

async function answer(
  file: FileHandle,
  state: SegmentState,
  finishedName: string | undefined,
  container: SegmentContainer | undefined,
  range: ByteRange | undefined,
): Promise<SegmentAnswer> {
  let size: number;
  try {
    size = (await file.stat()).size;
  } catch (error) {
    await file.close();
    throw error;
  }
  const common = { status: 200 as const, state, finishedName, container };
  if (range && range.start >= size) {
    await file.close();
    // Nothing from there yet (writing) or at all (complete): the reader knows which by `state`.
    return {
      ...common,
      status: 416,
      headers: { 'content-range': `bytes */${size}` },
      body: '',
    };
  }
  const start = range?.start ?? 0;
  // What is in the file now, not what it will have: the length said is the length sent.
  const end = Math.min(range?.end ?? size - 1, size - 1);
  if (size === 0) {
    await file.close();
    return { ...common, headers: { 'content-length': '0' }, body: '' };
  }
  const body = file.createReadStream({ start, end, autoClose: true });
  const headers: Record<string, string> = { 'content-length': String(end - start + 1) };
  if (!range) return { ...common, headers, body };
  // A writing segment's whole length is not known yet.
  headers['content-range'] = `bytes ${start}-${end}/${state === 'complete' ? size : '*'}`;
  return { ...common, status: 206, headers, body };
}
