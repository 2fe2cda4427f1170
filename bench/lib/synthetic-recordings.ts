/**
 * A recordings directory as the recorder leaves it after a day (protocol/src/recordings.ts): for
 * each aircraft, spans of an hour up to now, each with its span.json, its index (segments.log) and
 * its segments of SEGMENT_MS, each followed by its preview picture when one is given. Every
 * segment is a hard link to one real recorded segment (and every preview to one real preview) of
 * each aircraft: the list reads only the indexes, and a played segment is a real one.
 */
import { chmodSync, copyFileSync, linkSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  previewFileName,
  RECORDING_DIR_MODE,
  RECORDING_FILE_MODE,
  SEGMENT_INDEX_FILE,
  segmentFileName,
  segmentIndexLine,
  SPAN_META_FILE,
  spanName,
  type SpanMeta,
} from '@tailcam/protocol/recordings';

const SPAN_MS = 3_600_000;

export interface SyntheticDay {
  root: string;
  stageIds: readonly string[];
  /** How much is recorded, ending at `endMs`. */
  hours: number;
  endMs: number;
  segmentMs: number;
  meta: SpanMeta;
  /** A real segment (its container is `meta.container`), and optionally its preview (JPEG). */
  segmentFile: string;
  previewFile?: string;
}

/** Writes the day; returns the number of segments per aircraft. */
export function writeSyntheticDay(day: SyntheticDay): number {
  const segmentBytes = statSync(day.segmentFile).size;
  const previewBytes = day.previewFile === undefined ? 0 : statSync(day.previewFile).size;
  const perSpan = Math.floor(SPAN_MS / day.segmentMs);
  mkdirSync(day.root, { recursive: true, mode: RECORDING_DIR_MODE });
  for (const stageId of day.stageIds) {
    const stageDir = join(day.root, stageId);
    mkdirSync(stageDir, { mode: RECORDING_DIR_MODE });
    // Each aircraft's own source files: a hard link count stays far below the file system's limit.
    const segmentSource = join(stageDir, `source.${day.meta.container}`);
    copyFileSync(day.segmentFile, segmentSource);
    chmodSync(segmentSource, RECORDING_FILE_MODE);
    const previewSource = day.previewFile && join(stageDir, 'source.jpg');
    if (previewSource && day.previewFile) {
      copyFileSync(day.previewFile, previewSource);
      chmodSync(previewSource, RECORDING_FILE_MODE);
    }
    for (let hour = 0; hour < day.hours; hour += 1) {
      const startMs = day.endMs - (day.hours - hour) * SPAN_MS;
      const spanDir = join(stageDir, spanName(startMs));
      mkdirSync(spanDir, { mode: RECORDING_DIR_MODE });
      writeFileSync(join(spanDir, SPAN_META_FILE), JSON.stringify(day.meta), {
        mode: RECORDING_FILE_MODE,
      });
      const lines: string[] = [];
      for (let index = 0; index < perSpan; index += 1) {
        const name = segmentFileName({
          offsetMs: index * day.segmentMs,
          durationMs: day.segmentMs,
          container: day.meta.container,
        });
        linkSync(segmentSource, join(spanDir, name));
        lines.push(
          segmentIndexLine({
            change: 'added',
            name,
            bytes: segmentBytes,
            segment: {
              offsetMs: index * day.segmentMs,
              durationMs: day.segmentMs,
              container: day.meta.container,
            },
          }),
        );
        if (previewSource) {
          const preview = previewFileName(name);
          linkSync(previewSource, join(spanDir, preview));
          lines.push(segmentIndexLine({ change: 'preview', name: preview, bytes: previewBytes }));
        }
      }
      writeFileSync(join(spanDir, SEGMENT_INDEX_FILE), lines.join(''), {
        mode: RECORDING_FILE_MODE,
      });
    }
  }
  return perSpan * day.hours;
}
