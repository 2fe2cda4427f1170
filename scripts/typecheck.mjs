// The type-check (`npm run typecheck`, and each workspace's): every TypeScript program of the
// tree, one after another, checked by TypeScript's native compiler (TypeScript 7, the
// `typescript-native` dev dependency; docs/decisions/0105-the-type-check-by-the-native-compiler.md).
// `tsc` in node_modules/.bin stays TypeScript 5.9, the one typescript-eslint and editors load.
// Each program runs single-threaded: beside it the other lane of `npm test` has the other core.
// With workspace names as arguments, only their programs run.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const nativeCompiler = join(
  dirname(createRequire(import.meta.url).resolve('typescript-native/package.json')),
  'bin',
  'tsc',
);

/** Each folder's programs: the harness's also holds e2e/ and soak/ (harness/tsconfig.json). */
const PROGRAMS = {
  protocol: ['tsconfig.json'],
  web: ['tsconfig.json'],
  server: ['tsconfig.json'],
  'local-stage': ['tsconfig.json', 'tsconfig.sdk.json', 'tsconfig.sdk-test.json'],
  harness: ['tsconfig.json'],
  bench: ['tsconfig.json'],
};

const asked = process.argv.slice(2);
const unknown = asked.filter((folder) => !(folder in PROGRAMS));
if (unknown.length > 0) {
  console.error(
    `typecheck: no programs for ${unknown.join(', ')} (known: ${Object.keys(PROGRAMS).join(', ')})`,
  );
  process.exit(2);
}

const failed = [];
for (const folder of asked.length > 0 ? asked : Object.keys(PROGRAMS)) {
  for (const config of PROGRAMS[folder]) {
    const project = join(folder, config);
    const result = spawnSync(
      process.execPath,
      [nativeCompiler, '-p', project, '--noEmit', '--singleThreaded'],
      { cwd: root, stdio: 'inherit' },
    );
    if (result.status !== 0) failed.push(project);
  }
}
if (failed.length > 0) {
  console.error(`typecheck: type errors in ${failed.join(', ')}`);
  process.exit(1);
}
