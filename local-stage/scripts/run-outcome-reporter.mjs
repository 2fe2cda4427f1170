// @ts-check
// A vitest reporter that writes how each test file ended, and the errors vitest caught outside
// any test, to the file given as `--outputFile.outcome=<file>` (the record rerun-plan.mjs reads).
// vitest's own JSON reporter cannot tell a file whose worker died from one that passed: it
// reports both as "passed" (the dead one with its tests "pending", or, when the worker died in an
// `afterAll`, with its tests "passed"), and it leaves out the unhandled errors, the dead worker's
// among them. A test module's state does tell: a dead worker's file stays `pending`.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * @typedef {import('vitest/node').Reporter} Reporter
 * @typedef {import('vitest/node').TestModule} TestModule
 * @typedef {import('vitest/node').TestSpecification} TestSpecification
 * @typedef {import('./rerun-plan.mjs').FileOutcome} FileOutcome
 * @typedef {import('./rerun-plan.mjs').RunError} RunError
 */

/** @param {unknown} error */
function messageOf(error) {
  if (typeof error === 'object' && error !== null && 'message' in error) {
    return String(error.message).split('\n')[0] ?? '';
  }
  return String(error);
}

/** @implements {Reporter} */
export default class RunOutcomeReporter {
  /** @type {string | undefined} */
  outputFile;
  root = process.cwd();
  /** @type {string[]} the files the run meant to run */
  planned = [];

  /** @param {import('vitest/node').Vitest} vitest */
  onInit(vitest) {
    const { outputFile } = vitest.config;
    this.outputFile = typeof outputFile === 'object' ? outputFile.outcome : undefined;
    this.root = vitest.config.root;
  }

  /** @param {ReadonlyArray<TestSpecification>} specifications */
  onTestRunStart(specifications) {
    this.planned = specifications.map(({ moduleId }) => moduleId);
  }

  /**
   * @param {ReadonlyArray<TestModule>} testModules
   * @param {ReadonlyArray<import('vitest/node').SerializedError>} unhandledErrors
   */
  onTestRunEnd(testModules, unhandledErrors) {
    if (!this.outputFile) return;
    /** @type {FileOutcome[]} */
    const files = testModules.map((testModule) => ({
      file: relative(this.root, testModule.moduleId),
      state: testModule.state(),
      failures: [
        ...[...testModule.children.allTests('failed')].map((test) => test.fullName),
        ...testModule.errors().map(messageOf),
      ],
    }));
    const reported = new Set(testModules.map(({ moduleId }) => moduleId));
    for (const moduleId of this.planned.filter((planned) => !reported.has(planned))) {
      files.push({ file: relative(this.root, moduleId), state: 'queued', failures: [] });
    }
    /** @type {RunError[]} */
    const errors = unhandledErrors.map((error) => {
      const file = error.VITEST_TEST_PATH;
      return {
        message: messageOf(error),
        ...(error.cause === undefined ? {} : { cause: messageOf(error.cause) }),
        ...(typeof file === 'string' ? { file: relative(this.root, file) } : {}),
      };
    });
    writeFileSync(this.outputFile, JSON.stringify({ files, errors }, null, 2));
  }
}
