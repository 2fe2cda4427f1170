/**
 * The recorder as the tests run it: 1 s segments, limits nobody reaches, a quiet log and a 200 ms
 * poll, unless a test says otherwise; and a stage with cameras and such a recorder, set up and
 * closed as one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Recorder, type RecorderOptions } from '../recorder/recorder';
import { silentLogger } from '../stage-log';
import { startStageWithCameras, type StageWithCameras } from './stage-with-cameras';

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

export interface RecordingStage {
  running: StageWithCameras;
  /** Where the recorder writes (a temporary directory, removed by `close`). */
  root: string;
  recorder: Recorder;
  /** Stops the recorder and the stage, and removes `root` (kept with REC_KEEP=1). */
  close(): Promise<void>;
}

/**
 * A stage with its synthetic cameras and a started recorder of its own (testRecorderOptions, mode
 * `all`) writing into a new temporary directory: what the recorder's tests each set up.
 */
export async function startRecordingStage(
  stage: Omit<Parameters<typeof startStageWithCameras>[0], 'secret'>,
  recorderOptions: Partial<RecorderOptions> & { secret: Uint8Array; prefix: string },
): Promise<RecordingStage> {
  const { secret, prefix, ...rest } = recorderOptions;
  const running = await startStageWithCameras({ ...stage, secret });
  const root = mkdtempSync(join(tmpdir(), prefix));
  const recorder = new Recorder(
    testRecorderOptions({ stageUrl: running.url, secret, root, mode: 'all', ...rest }),
  );
  await recorder.start();
  return {
    running,
    root,
    recorder,
    async close() {
      await recorder.close();
      await running.close();
      if (!process.env.REC_KEEP) rmSync(root, { recursive: true, force: true });
    },
  };
}
