/**
 * What the API's thread and the remux worker (remux-worker.ts) say to each other. The job is
 * parsed on arrival like any other boundary, so a wrong one fails loudly in the worker.
 */
import type { SegmentContainer } from '@tailcam/protocol/recordings';

export interface RemuxJob {
  /** The span's directory. */
  dir: string;
  container: SegmentContainer;
  /** In time order; each one's timestamps move by `shiftSeconds` (its start in the download). */
  segments: { name: string; shiftSeconds: number }[];
}

/** From the worker: a chunk of the file (then it waits for `more`), or how it ended. */
export type FromWorker =
  | { type: 'chunk'; data: Uint8Array }
  | { type: 'done'; bytes: number }
  | { type: 'failed'; message: string }
  | { type: 'stopped' };

/** To the worker: send the next chunk, or stop (it cancels the output and answers `stopped`). */
export type ToWorker = 'more' | 'stop';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

export function parseRemuxJob(value: unknown): RemuxJob {
  if (!isRecord(value) || typeof value.dir !== 'string') throw new Error('bad remux job');
  const { container, segments } = value;
  if (container !== 'webm' && container !== 'mp4') throw new Error('bad remux container');
  if (!Array.isArray(segments) || segments.length === 0) throw new Error('bad remux segments');
  return {
    dir: value.dir,
    container,
    segments: segments.map((segment: unknown) => {
      if (
        !isRecord(segment) ||
        typeof segment.name !== 'string' ||
        typeof segment.shiftSeconds !== 'number'
      ) {
        throw new Error('bad remux segment');
      }
      return { name: segment.name, shiftSeconds: segment.shiftSeconds };
    }),
  };
}

export function parseFromWorker(value: unknown): FromWorker | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.type) {
    case 'chunk':
      return value.data instanceof Uint8Array ? { type: 'chunk', data: value.data } : undefined;
    case 'done':
      return typeof value.bytes === 'number' ? { type: 'done', bytes: value.bytes } : undefined;
    case 'failed':
      return typeof value.message === 'string'
        ? { type: 'failed', message: value.message }
        : undefined;
    case 'stopped':
      return { type: 'stopped' };
    default:
      return undefined;
  }
}
