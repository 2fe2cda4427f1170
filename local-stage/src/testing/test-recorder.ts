/**
 * The recorder as the tests run it: 1 s segments, limits nobody reaches, a quiet log and a 200 ms
 * poll, unless a test says otherwise.
 */
import type { RecorderOptions } from '../recorder/recorder';
import { silentLogger } from '../stage-log';

export function testRecorderOptions(
  options: Pick<RecorderOptions, 'stageUrl' | 'secret' | 'root' | 'mode'> &
    Partial<RecorderOptions>,
): RecorderOptions {
  return {
    segmentMs: 1_000,
    maxAgeMs: 3_600_000,
    maxBytes: 2 ** 30,
    minFreeBytes: 0,
    pollMs: 200,
    log: silentLogger(),
    ...options,
  };
}
