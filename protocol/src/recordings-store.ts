/**
 * Reading the recordings directory (layout: recordings.ts): what the recorder's retention and the
 * API's listing both need. Only names that parse are taken; anything else there is left alone.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  isStageName,
  parseSegmentFileName,
  parseSpanMeta,
  parseSpanName,
  previewFileName,
  SPAN_META_FILE,
  type SegmentName,
  type SpanMeta,
} from './recordings';

export interface StoredSegment extends SegmentName {
  /** The file's name in its span's directory. */
  name: string;
  /** Absolute UTC start and end, Unix ms. */
  startMs: number;
  endMs: number;
  bytes: number;
  /** Its preview picture's name, when it has one (decision 0084). */
  preview?: string;
}

export interface StoredSpan {
  stageId: string;
  startMs: number;
  dir: string;
  meta: SpanMeta | undefined;
  /** Finished segments, in time order. */
  segments: StoredSegment[];
}

async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

/**
 * The spans of one aircraft (or of every aircraft, `stageId` undefined; or the one span named
 * `only`), oldest first.
 */
export async function readSpans(
  root: string,
  stageId?: string,
  only?: string,
): Promise<StoredSpan[]> {
  const stages = stageId === undefined ? (await names(root)).filter(isStageName) : [stageId];
  const spans: StoredSpan[] = [];
  for (const stage of stages) {
    if (!isStageName(stage)) continue;
    const spanDirs = only === undefined ? await names(join(root, stage)) : [only];
    for (const spanDirName of spanDirs) {
      const startMs = parseSpanName(spanDirName);
      if (startMs === undefined) continue;
      const dir = join(root, stage, spanDirName);
      const files = await names(dir);
      const meta = files.includes(SPAN_META_FILE)
        ? parseSpanMeta(await readFile(join(dir, SPAN_META_FILE), 'utf8').catch(() => ''))
        : undefined;
      const segments: StoredSegment[] = [];
      const present = new Set(files);
      for (const name of files) {
        const parsed = parseSegmentFileName(name);
        if (!parsed) continue;
        const size = await stat(join(dir, name)).catch(() => undefined);
        if (!size?.isFile()) continue;
        const preview = previewFileName(name);
        segments.push({
          ...parsed,
          name,
          startMs: startMs + parsed.offsetMs,
          endMs: startMs + parsed.offsetMs + parsed.durationMs,
          bytes: size.size,
          ...(present.has(preview) ? { preview } : {}),
        });
      }
      spans.push({ stageId: stage, startMs, dir, meta, segments });
    }
  }
  return spans.sort((a, b) => a.startMs - b.startMs);
}
