/**
 * A workspace's test files as two vitest projects: the files that replace a module (`vi.mock`,
 * `vi.doMock`), each in a process and module cache of its own, and all the others one after
 * another in one process with one module cache (`isolate: false`), where loading each file's
 * imports afresh had taken a fifth (the server) to two thirds (the web app, with its jsdom page)
 * of the suite's time (docs/development.md#how-npm-test-spends-its-time). Read by
 * server/vitest.config.ts and web/vite.config.ts when vitest loads them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProjectInlineConfiguration } from 'vitest/config';

const MOCKS_A_MODULE = /\bvi\.(mock|doMock)\(/;

export function isolationProjects(options: {
  /** The workspace's `src` directory. */
  srcDir: string;
  /** Its test files, as a glob from the workspace (`src/**\/*.test.ts`) and as a file name test. */
  include: string;
  testFile: RegExp;
  /** The shared project's name. */
  sharedName: string;
}): TestProjectInlineConfiguration[] {
  const mocking = readdirSync(options.srcDir, { recursive: true, encoding: 'utf8' })
    .filter((file) => options.testFile.test(file))
    .filter((file) => MOCKS_A_MODULE.test(readFileSync(join(options.srcDir, file), 'utf8')))
    .map((file) => `src/${file}`);
  return [
    {
      extends: true,
      test: {
        name: options.sharedName,
        include: [options.include],
        exclude: mocking,
        isolate: false,
      },
    },
    { extends: true, test: { name: 'isolated', include: mocking } },
  ];
}
