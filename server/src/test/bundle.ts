/**
 * Bundles an entry point the way `npm run build` does (workspace code inlined, npm packages
 * external), into a temporary directory under node_modules so that those packages resolve.
 * Spawning the bundle costs a plain `node` start instead of compiling TypeScript each time.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from './helpers';

export async function bundleEntry(entry: string): Promise<{ file: string; remove(): void }> {
  const manifest: unknown = JSON.parse(
    readFileSync(join(repoRoot, 'server', 'package.json'), 'utf8'),
  );
  const dependencies =
    typeof manifest === 'object' && manifest !== null && 'dependencies' in manifest
      ? Object.keys(manifest.dependencies as object)
      : [];
  const dir = join(
    repoRoot,
    'node_modules',
    '.cache',
    `tailcam-test-${randomBytes(6).toString('hex')}`,
  );
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'entry.js');
  await build({
    entryPoints: [join(repoRoot, 'server', entry)],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: dependencies.filter((name) => !name.startsWith('@tailcam/')),
    logLevel: 'error',
  });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
