/**
 * Where things are: the repository root, found from this module's own location so that paths
 * such as DATA_DIR and web/dist resolve the same whether the server runs from source
 * (server/src) or from the bundle (server/dist), and whatever the current directory is; and the
 * files the server serves from other packages. Test harnesses import these too
 * (`@tailcam/server/paths`), so that each path is written once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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

const IVS_SDK_PACKAGE = 'amazon-ivs-web-broadcast';

/**
 * The real Amazon IVS Web Broadcast SDK file, as its npm package ships it (`/sdk/stage.js` with
 * the ivs provider). When the package is not installed, where `npm install` puts it, so that the
 * "missing" messages name the file to expect.
 */
export function ivsSdkFile(repoRoot: string = findRepoRoot()): string {
  try {
    return createRequire(import.meta.url).resolve(IVS_SDK_PACKAGE);
  } catch {
    return join(repoRoot, 'node_modules', IVS_SDK_PACKAGE, 'dist', `${IVS_SDK_PACKAGE}.js`);
  }
}

/** The local stage's browser SDK bundle (`/sdk/stage.js` with the local provider). */
export function localStageSdkFile(repoRoot: string = findRepoRoot()): string {
  return join(repoRoot, 'local-stage', 'dist', 'stage-sdk.js');
}

/** The built web app. */
export function webDistDir(repoRoot: string = findRepoRoot()): string {
  return join(repoRoot, 'web', 'dist');
}
