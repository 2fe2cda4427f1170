/**
 * What the recorder keeps (docs/decisions/0072-recorder.md): segments younger than `maxAgeMs`,
 * at most `maxBytes` of them (the oldest go first; a segment's preview picture goes with it and
 * is not counted, a few kB beside a few hundred: decision 0084; so does its flight data, decision
 * 0096), and a free-space floor: below `minFreeBytes`
 * free on the disk that holds the recordings (and, by default, the embedded database), no new
 * segment starts, and the log says so once, as an error, until there is room again.
 *
 * `planRemovals` is the rule, pure; `Retention` applies it to the directory on a timer.
 */
import { existsSync } from 'node:fs';
import { appendFile, rm, rmdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import {
  flightFileName,
  parseSegmentFileName,
  RECORDING_FILE_MODE,
  SEGMENT_INDEX_FILE,
  segmentIndexLine,
} from '@tailcam/protocol/recordings';
import { readSpans, type StoredSpan } from '@tailcam/protocol/recordings-store';
import type { StageLogger } from '../stage-log';

export interface RetentionLimits {
  maxAgeMs: number;
  maxBytes: number;
  minFreeBytes: number;
}

export interface Removal {
  dir: string;
  name: string;
  bytes: number;
  /** The segment's preview picture, removed with it (decision 0084). */
  preview?: string;
}

/**
 * The segments to remove from `spans` at `nowMs`: every one that ended more than `maxAgeMs` ago,
 * then the oldest of the rest until what is left fits in `maxBytes`.
 */
export function planRemovals(
  spans: readonly StoredSpan[],
  nowMs: number,
  limits: Pick<RetentionLimits, 'maxAgeMs' | 'maxBytes'>,
): Removal[] {
  const all = spans
    .flatMap((span) => span.segments.map((segment) => ({ span, segment })))
    .sort((a, b) => a.segment.startMs - b.segment.startMs);
  const removals: Removal[] = [];
  let kept = all.reduce((sum, { segment }) => sum + segment.bytes, 0);
  for (const { span, segment } of all) {
    const tooOld = segment.endMs < nowMs - limits.maxAgeMs;
    if (!tooOld && kept <= limits.maxBytes) break;
    removals.push({
      dir: span.dir,
      name: segment.name,
      bytes: segment.bytes,
      ...(segment.preview === undefined ? {} : { preview: segment.preview }),
    });
    kept -= segment.bytes;
  }
  return removals;
}

/** Whether recording may go on with `freeBytes` free: held below the floor, free again at 110%. */
export function floorAllows(freeBytes: number, minFreeBytes: number, heldNow: boolean): boolean {
  return heldNow ? freeBytes >= minFreeBytes * 1.1 : freeBytes >= minFreeBytes;
}

export interface RetentionOptions extends RetentionLimits {
  root: string;
  log: StageLogger;
  /** The disk's free bytes (a test gives its own). */
  freeBytes?: (path: string) => Promise<number>;
  now?: () => number;
}

async function diskFreeBytes(path: string): Promise<number> {
  const stats = await statfs(path);
  return stats.bavail * stats.bsize;
}

export class Retention {
  private held = false;
  private readonly freeBytes: (path: string) => Promise<number>;
  private readonly now: () => number;

  constructor(private readonly options: RetentionOptions) {
    this.freeBytes = options.freeBytes ?? diskFreeBytes;
    this.now = options.now ?? Date.now;
  }

  /** False while the free-space floor holds recording. */
  get allowsRecording(): boolean {
    return !this.held;
  }

  /** Removes what the limits say, then checks the floor. Never throws. */
  async sweep(): Promise<{ removed: Removal[]; held: boolean }> {
    const { root, log } = this.options;
    const removed: Removal[] = [];
    try {
      const spans = await readSpans(root);
      for (const removal of planRemovals(spans, this.now(), this.options)) {
        await rm(join(removal.dir, removal.name), { force: true });
        // Its index line below takes the preview from the API's list with the segment.
        if (removal.preview) await rm(join(removal.dir, removal.preview), { force: true });
        // Its flight data (decision 0096) goes with it.
        const offsetMs = parseSegmentFileName(removal.name)?.offsetMs;
        if (offsetMs !== undefined) {
          await rm(join(removal.dir, flightFileName(offsetMs)), { force: true });
        }
        // The API's list reads the span's index, not its directory: it must hear of the removal.
        // A span without one (recorded before indexes) is listed from its directory: left so.
        const indexPath = join(removal.dir, SEGMENT_INDEX_FILE);
        if (existsSync(indexPath)) {
          await appendFile(indexPath, segmentIndexLine({ change: 'removed', name: removal.name }), {
            mode: RECORDING_FILE_MODE,
          }).catch(() => undefined);
        }
        removed.push(removal);
      }
      // A span left with no segment (and not being written: no .part) goes too.
      for (const span of spans) {
        const left = span.segments.filter(
          (segment) => !removed.some((r) => r.dir === span.dir && r.name === segment.name),
        );
        if (left.length === 0 && span.startMs < this.now() - 60_000) {
          await rm(join(span.dir, 'span.json'), { force: true });
          await rm(join(span.dir, SEGMENT_INDEX_FILE), { force: true });
          await rmdir(span.dir).catch(() => undefined);
        }
      }
      if (removed.length > 0) {
        const bytes = removed.reduce((sum, removal) => sum + removal.bytes, 0);
        log.info(`recording retention: removed ${removed.length} segments (${bytes} bytes)`);
      }
    } catch (error) {
      log.warn({ err: error }, 'recording retention: the sweep failed');
    }
    try {
      const free = await this.freeBytes(root);
      const allows = floorAllows(free, this.options.minFreeBytes, this.held);
      if (!allows && !this.held) {
        log.error(
          `recording stopped: ${Math.round(free / 2 ** 20)} MiB free on the disk of ${root}, under the floor of ${Math.round(this.options.minFreeBytes / 2 ** 20)} MiB (RECORDING_MIN_FREE_MB)`,
        );
      } else if (allows && this.held) {
        log.warn(
          `recording resumed: ${Math.round(free / 2 ** 20)} MiB free on the disk of ${root}`,
        );
      }
      this.held = !allows;
    } catch (error) {
      log.warn({ err: error }, 'recording retention: cannot read the free space');
    }
    return { removed, held: this.held };
  }
}
