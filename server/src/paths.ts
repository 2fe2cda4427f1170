/**
 * The repository root, found from this module's own location so that paths such as DATA_DIR and
 * web/dist resolve the same whether the server runs from source (server/src) or from the bundle
 * (server/dist), and whatever the current directory is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function isRepoRoot(dir: string): boolean {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest) || !existsSync(join(dir, 'server', 'package.json'))) return false;
  try {
    const parsed: unknown = JSON.parse(readFileSync(manifest, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && 'workspaces' in parsed;
  } catch {
    return false;
  }
}

export function findRepoRoot(start = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  for (;;) {
    if (isRepoRoot(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`Cannot find the Tailcam repository root above ${start}`);
    dir = parent;
  }
}
