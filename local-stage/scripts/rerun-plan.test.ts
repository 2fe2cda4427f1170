/**
 * What `npm test -w local-stage` does after a failed run (scripts/rerun-plan.mjs). The records are
 * the shapes scripts/run-outcome-reporter.mjs wrote when a throwaway test killed its own worker
 * (`process.kill(process.pid, 'SIGSEGV')`) beside passing, failing and timed-out files.
 */
import { describe, expect, it } from 'vitest';
import { planAfterFailure, type FileOutcome, type RunError } from './rerun-plan.mjs';

const deadWorker: RunError = {
  message: '[vitest-pool]: Worker forks emitted error.',
  cause: 'Worker exited unexpectedly',
};
const passed = (file: string): FileOutcome => ({ file, state: 'passed', failures: [] });
const crashed = (file: string): FileOutcome => ({ file, state: 'pending', failures: [] });

describe('after a failed run of the local stage tests', () => {
  it('fails at once, running nothing again, when a test failed in a run where a worker also died', () => {
    const plan = planAfterFailure({
      files: [
        passed('src/a.test.ts'),
        crashed('src/sdk/stage.test.ts'),
        {
          file: 'src/b.test.ts',
          state: 'failed',
          failures: ['viewer > sees the first frame within 2 s'],
        },
      ],
      errors: [deadWorker],
    });
    expect(plan).toEqual({
      action: 'fail',
      failures: ['src/b.test.ts: viewer > sees the first frame within 2 s'],
    });
  });

  it('fails at once when a file failed outside its tests (a hook, an import), beside a dead worker', () => {
    const plan = planAfterFailure({
      files: [
        crashed('src/sdk/stage.test.ts'),
        { file: 'src/c.test.ts', state: 'failed', failures: ['Hook timed out in 20000ms.'] },
      ],
      errors: [deadWorker],
    });
    expect(plan).toEqual({
      action: 'fail',
      failures: ['src/c.test.ts: Hook timed out in 20000ms.'],
    });
  });

  it('fails at once when an unhandled error other than the dead worker was caught', () => {
    const plan = planAfterFailure({
      files: [passed('src/e.test.ts'), crashed('src/sdk/stage.test.ts')],
      errors: [{ message: 'stray rejection', file: 'src/e.test.ts' }, deadWorker],
    });
    expect(plan).toEqual({
      action: 'fail',
      failures: ['unhandled error in src/e.test.ts: stray rejection'],
    });
  });

  it('runs again only the file whose worker died, when nothing else went wrong', () => {
    const plan = planAfterFailure({
      files: [
        passed('src/a.test.ts'),
        crashed('src/sdk/stage.test.ts'),
        { file: 'src/thumbnails/t.test.ts', state: 'skipped', failures: [] },
        passed('src/d.test.ts'),
      ],
      errors: [deadWorker],
    });
    expect(plan).toEqual({ action: 'rerun', files: ['src/sdk/stage.test.ts'] });
  });

  it('runs again the files the run never reported, beside the one whose worker died', () => {
    const plan = planAfterFailure({
      files: [
        crashed('src/sdk/stage.test.ts'),
        passed('src/a.test.ts'),
        { file: 'src/z.test.ts', state: 'queued', failures: [] },
      ],
      errors: [deadWorker],
    });
    expect(plan).toEqual({ action: 'rerun', files: ['src/sdk/stage.test.ts', 'src/z.test.ts'] });
  });

  it('runs everything again when a worker died but no file is without its result', () => {
    const plan = planAfterFailure({ files: [passed('src/a.test.ts')], errors: [deadWorker] });
    expect(plan.action).toBe('rerun-all');
  });

  it('runs nothing again when no worker died', () => {
    expect(
      planAfterFailure({
        files: [{ file: 'src/b.test.ts', state: 'failed', failures: ['times out'] }],
        errors: [],
      }),
    ).toEqual({ action: 'fail', failures: ['src/b.test.ts: times out'] });
    expect(planAfterFailure({ files: [passed('src/a.test.ts')], errors: [] })).toEqual({
      action: 'fail',
      failures: [],
    });
  });
});
