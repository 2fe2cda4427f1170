/**
 * An empty, migrated embedded database (DATA_DIR/pglite) made once by the production accounts CLI
 * and copied into each new instance's data directory: PGlite's initdb takes ~1.7 s of a fresh
 * instance's first CLI run or start, a copy of its 39 MB a tenth of that. The copy is what the CLI
 * leaves after its first run on an empty DATA_DIR, so an instance starts as it would after
 * `npm run users -- list`, with no account (the demo viewer still comes as on a fresh clone).
 * Kept under node_modules/.cache, keyed by the CLI's build and the PGlite version; the first
 * instance of a build makes its own database with the CLI, as before, and leaves a copy there.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './root';

/** Where the server keeps PGlite under DATA_DIR (server/src/db/open-store.ts's PGLITE_DIR). */
const PGLITE_DIR = 'pglite';
const USERS_CLI = 'server/dist/users.js';

function templateDir(): string {
  const pglite = readFileSync(
    join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'),
    'utf8',
  );
  const key = createHash('sha256')
    .update(readFileSync(join(ROOT, USERS_CLI)))
    .update(pglite)
    .digest('hex')
    .slice(0, 16);
  return join(ROOT, 'node_modules', '.cache', 'tailcam-harness', `pglite-${key}`);
}

/**
 * Puts an empty, migrated embedded database into `dataDir`, which must have none yet: a copy of the
 * template, or, while this build has none, the CLI's own (kept as the template).
 */
export function seedDatabase(dataDir: string, env: NodeJS.ProcessEnv): void {
  const template = templateDir();
  if (existsSync(template)) {
    cpSync(template, join(dataDir, PGLITE_DIR), { recursive: true });
    return;
  }
  const made = spawnSync(process.execPath, [USERS_CLI, 'list'], {
    cwd: ROOT,
    env: { ...env, DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (made.status !== 0) {
    throw new Error(`users list (the database template) failed:\n${made.stdout}\n${made.stderr}`);
  }
  const cache = dirname(template);
  mkdirSync(cache, { recursive: true });
  const partial = mkdtempSync(join(cache, 'making-'));
  try {
    cpSync(join(dataDir, PGLITE_DIR), join(partial, PGLITE_DIR), { recursive: true });
    renameSync(join(partial, PGLITE_DIR), template);
  } catch (error) {
    // Another process made it meanwhile: theirs is as good.
    if (!existsSync(template)) throw error;
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}
