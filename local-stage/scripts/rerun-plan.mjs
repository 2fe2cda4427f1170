// @ts-check
// What `npm test -w local-stage` does after a failed `vitest run`, from the run's outcome as
// scripts/run-outcome-reporter.mjs records it (decision 0027): a failed test, a timeout or any
// error that is not a dead worker fails at once; a dead worker alone runs again only the files
// it left without a result. A plain function of the record, so that it is tested as a table.

/**
 * A test file's state at the end of the run, as vitest's `TestModule.state()` gives it, or
 * `queued` for a file the run meant to run but never reported. A file whose worker died stays
 * `pending`, even when the worker died in an `afterAll` after every test had passed.
 * @typedef {'passed' | 'failed' | 'skipped' | 'pending' | 'queued'} FileState
 */
/**
 * @typedef {object} FileOutcome
 * @property {string} file the test file, relative to the local-stage package
 * @property {FileState} state
 * @property {string[]} failures its failed tests' full names and its own errors' messages (a
 *   failed `beforeAll`, an import that threw)
 */
/**
 * An error vitest caught outside any test's result (vitest's "Unhandled Errors"): an unhandled
 * rejection from a test file (`file` then names it) or the pool's report of a dead worker.
 * @typedef {object} RunError
 * @property {string} message
 * @property {string} [cause] its cause's message
 * @property {string} [file]
 */
/**
 * @typedef {object} RunOutcome
 * @property {FileOutcome[]} files
 * @property {RunError[]} errors
 */
/**
 * `fail`: exit with the run's status (`failures` says why, empty when the record shows no
 * reason, such as vitest refusing its arguments). `rerun`: run these files once more.
 * `rerun-all`: a worker died but no file was left without a result, so the whole suite runs again.
 * @typedef {{ action: 'fail', failures: string[] }
 *   | { action: 'rerun', files: string[] }
 *   | { action: 'rerun-all', reason: string }} RerunPlan
 */

/** vitest's pool's own words when a test worker process exits before its file is done. */
export const WORKER_DIED = /Worker exited unexpectedly/;

/** @param {RunError} error */
export function isDeadWorker(error) {
  return WORKER_DIED.test(error.message) || WORKER_DIED.test(error.cause ?? '');
}

/**
 * @param {RunOutcome} outcome
 * @returns {RerunPlan}
 */
export function planAfterFailure({ files, errors }) {
  const failures = [
    ...files
      .filter(({ state }) => state === 'failed')
      .map((failed) => `${failed.file}: ${failed.failures.join('; ') || 'failed'}`),
    ...errors
      .filter((error) => !isDeadWorker(error))
      .map(({ message, file }) => `unhandled error${file ? ` in ${file}` : ''}: ${message}`),
  ];
  if (failures.length > 0 || !errors.some(isDeadWorker)) return { action: 'fail', failures };
  const unfinished = files
    .filter(({ state }) => state === 'pending' || state === 'queued')
    .map(({ file }) => file);
  if (unfinished.length === 0) {
    return {
      action: 'rerun-all',
      reason: 'a test worker died, but every file has its result: which one it ran is unknown',
    };
  }
  return { action: 'rerun', files: unfinished };
}
