/**
 * A workspace's test files as two vitest projects: the files that replace a module (`vi.mock`,
 * `vi.doMock`), or that a workspace keeps apart for its own reason, each in a process and module
 * cache of its own, and all the others one after another in one process with one module cache
 * (`isolate: false`), where loading each file's imports afresh had taken a fifth (the server) to
 * two thirds (the web app, with its jsdom page) of the suite's time
 * (docs/development.md#how-npm-test-spends-its-time). Read by server/vitest.config.ts,
 * web/vite.config.ts and local-stage/vitest.config.ts when vitest loads them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { TestProjectInlineConfiguration } from 'vitest/config';

const MOCKS_A_MODULE = /\bvi\.(mock|doMock)\(/;
/** The module named by each `import ... from '...'`, `import '...'` and `import('...')`. */
const IMPORTED = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g;

/**
 * Whether `file` (a TypeScript module) imports `moduleName`, itself or through the workspace's
 * own modules it imports by relative path.
 */
export function importsReach(file: string, moduleName: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  for (const [, specifier = ''] of readFileSync(file, 'utf8').matchAll(IMPORTED)) {
    if (specifier === moduleName) return true;
    if (!specifier.startsWith('.')) continue;
    const base = resolve(dirname(file), specifier);
    const found = [base, `${base}.ts`, base.replace(/\.js$/, '.ts'), join(base, 'index.ts')].find(
      (candidate) => candidate.endsWith('.ts') && existsSync(candidate),
    );
    if (found && importsReach(found, moduleName, seen)) return true;
  }
  return false;
}

export function isolationProjects(options: {
  /** The workspace's `src` directory. */
  srcDir: string;
  /** Its test files, as globs from the workspace (`src/**\/*.test.ts`) and as a file name test. */
  include: string | string[];
  testFile: RegExp;
  /** The shared project's name. */
  sharedName: string;
  /** Files (from the workspace) neither project runs. */
  exclude?: string[];
  /** Whether a test file (its absolute path) runs apart although it mocks nothing. */
  keepApart?: (file: string) => boolean;
}): TestProjectInlineConfiguration[] {
  const exclude = options.exclude ?? [];
  const apart = readdirSync(options.srcDir, { recursive: true, encoding: 'utf8' })
    .filter((file) => options.testFile.test(file))
    .filter((file) => {
      const path = join(options.srcDir, file);
      return MOCKS_A_MODULE.test(readFileSync(path, 'utf8')) || options.keepApart?.(path);
    })
    .map((file) => `src/${file}`);
  return [
    {
      extends: true,
      test: {
        name: options.sharedName,
        include: [options.include].flat(),
        exclude: [...apart, ...exclude],
        isolate: false,
      },
    },
    { extends: true, test: { name: 'isolated', include: apart, exclude } },
  ];
}
