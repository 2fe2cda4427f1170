/**
 * The local recordings as the API lists them, from each span's index (`segments.log`, appended by
 * the recorder: protocol/src/recordings.ts, decision 0081) read on from where the last call
 * stopped. A call reads the root and each aircraft's folder (a few names), stats each span's
 * index, and reads only the lines appended since; it never reads or stats a segment. At 24 h of
 * three aircraft (~65,000 segments) that is a few dozen system calls instead of 65,000.
 *
 * A segment's preview picture (decision 0084) is known from its own line in the index, written
 * after the segment's; the segment's removal line removes it too.
 *
 * A span without an index (recorded before the index existed) is read from its directory, as
 * before; spans age out in a day.
 */
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  isStageName,
  parseSegmentIndexLine,
  parseSpanMeta,
  parseSpanName,
  previewFileName,
  SEGMENT_INDEX_FILE,
  SPAN_META_FILE,
  type SpanMeta,
} from '@tailcam/protocol/recordings';
import { readSpans, type StoredSegment, type StoredSpan } from '@tailcam/protocol/recordings-store';

interface IndexedSpan {
  /** The index file's inode: a new file (the span removed and made again) is read from 0. */
  inode: number;
  /** Bytes of the index read so far, up to its last whole line. */
  readBytes: number;
  meta: SpanMeta | undefined;
  segments: Map<string, StoredSegment>;
  /** `segments` in time order; undefined when it changed since. */
  sorted: StoredSegment[] | undefined;
  /** Preview names its index lists (decision 0084), kept on their segments' entries too. */
  previews: Set<string>;
  /** Offsets of segments begun (`*` lines) and not yet finished (no `+` line): decision 0085. */
  writing: Set<number>;
}

/** The names the segment of a preview (`{offset}-{duration}.jpg`) may have. */
function segmentNames(previewName: string): string[] {
  const base = previewName.slice(0, -'.jpg'.length);
  return [`${base}.webm`, `${base}.mp4`];
}

/** At most this much of an index is read in one go (a day of one span is ~650 KB). */
const READ_CHUNK_BYTES = 1024 * 1024;

async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

export class LocalRecordingsIndex {
  private readonly spans = new Map<string, IndexedSpan>();

  constructor(private readonly root: string) {}

  /** Every aircraft's spans (or one aircraft's, or the one span `only`), oldest first. */
  async read(stageId?: string, only?: string): Promise<StoredSpan[]> {
    const stages = stageId === undefined ? (await names(this.root)).filter(isStageName) : [stageId];
    const result: StoredSpan[] = [];
    const seen = new Set<string>();
    for (const stage of stages) {
      if (!isStageName(stage)) continue;
      const spanDirs = only === undefined ? await names(join(this.root, stage)) : [only];
      for (const spanDirName of spanDirs) {
        const startMs = parseSpanName(spanDirName);
        if (startMs === undefined) continue;
        const dir = join(this.root, stage, spanDirName);
        seen.add(dir);
        const span = await this.readSpan(stage, spanDirName, startMs, dir);
        if (span) result.push(span);
      }
    }
    // Spans retention removed are forgotten (only on a whole read: a partial one saw few).
    if (stageId === undefined) {
      for (const dir of this.spans.keys()) if (!seen.has(dir)) this.spans.delete(dir);
    }
    return result.sort((a, b) => a.startMs - b.startMs);
  }

  /**
   * The offset of the segment its index says is being written in a span `read` returned (the
   * newest begun and not finished), or undefined. A killed recorder's stays in the index: the
   * caller checks that its `.part` is there.
   */
  writingIn(span: StoredSpan): number | undefined {
    const writing = this.spans.get(span.dir)?.writing;
    return writing && writing.size > 0 ? Math.max(...writing) : undefined;
  }

  private async readSpan(
    stageId: string,
    spanDirName: string,
    startMs: number,
    dir: string,
  ): Promise<StoredSpan | undefined> {
    const indexPath = join(dir, SEGMENT_INDEX_FILE);
    const found = await stat(indexPath).catch(() => undefined);
    if (!found?.isFile()) {
      this.spans.delete(dir);
      const [unindexed] = await readSpans(this.root, stageId, spanDirName);
      return unindexed;
    }
    let span = this.spans.get(dir);
    if (!span || span.inode !== found.ino || found.size < span.readBytes) {
      span = {
        inode: found.ino,
        readBytes: 0,
        meta: undefined,
        segments: new Map(),
        sorted: [],
        previews: new Set(),
        writing: new Set(),
      };
      this.spans.set(dir, span);
    }
    span.meta ??= parseSpanMeta(await readFile(join(dir, SPAN_META_FILE), 'utf8').catch(() => ''));
    if (found.size > span.readBytes) await this.readOn(span, indexPath, startMs, found.size);
    span.sorted ??= [...span.segments.values()].sort((a, b) => a.startMs - b.startMs);
    return { stageId, startMs, dir, meta: span.meta, segments: span.sorted };
  }

  /** Reads the lines appended since the last call; a line still being written waits for the next. */
  private async readOn(
    span: IndexedSpan,
    path: string,
    startMs: number,
    size: number,
  ): Promise<void> {
    const file = await open(path, 'r').catch(() => undefined);
    if (!file) return;
    try {
      while (span.readBytes < size) {
        const length = Math.min(READ_CHUNK_BYTES, size - span.readBytes);
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await file.read(buffer, 0, length, span.readBytes);
        const lastNewline = buffer.subarray(0, bytesRead).lastIndexOf(0x0a);
        if (lastNewline < 0) return;
        const text = buffer.subarray(0, lastNewline).toString('utf8');
        span.readBytes += lastNewline + 1;
        for (const line of text.split('\n')) {
          const entry = parseSegmentIndexLine(line);
          if (!entry) continue;
          if (entry.change === 'writing') {
            span.writing.add(entry.offsetMs);
            continue;
          }
          span.sorted = undefined;
          if (entry.change === 'preview') {
            // Written after its segment; the segment's removal removes both.
            span.previews.add(entry.name);
            const segment = segmentNames(entry.name)
              .map((name) => span.segments.get(name))
              .find((found) => found !== undefined);
            if (segment) span.segments.set(segment.name, { ...segment, preview: entry.name });
            continue;
          }
          if (entry.change === 'removed') {
            span.segments.delete(entry.name);
            span.previews.delete(previewFileName(entry.name));
            continue;
          }
          span.writing.delete(entry.segment.offsetMs);
          const segmentStartMs = startMs + entry.segment.offsetMs;
          const preview = previewFileName(entry.name);
          span.segments.set(entry.name, {
            ...entry.segment,
            name: entry.name,
            startMs: segmentStartMs,
            endMs: segmentStartMs + entry.segment.durationMs,
            bytes: entry.bytes,
            ...(span.previews.has(preview) ? { preview } : {}),
          });
        }
      }
    } finally {
      await file.close();
    }
  }
}
