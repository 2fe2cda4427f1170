/**
 * A migrated, empty PGlite database as a tarball, made once and cached under
 * node_modules/.cache (keyed by the PGlite version and the migrations): test files start their
 * in-memory database from it instead of running initdb each, which takes seconds.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrate, migrations } from '../db/migrations';
import { openPgliteClient } from '../db/pglite-client';
import { findRepoRoot } from '../paths';

interface ProvideContext {
  provide(key: 'pgliteDump', value: string): void;
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteDump: string;
  }
}

export default async function setup(project: ProvideContext) {
  const root = findRepoRoot();
  const pgliteVersion = String(
    (
      JSON.parse(
        readFileSync(join(root, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'),
      ) as { version?: unknown }
    ).version,
  );
  const key = createHash('sha256')
    .update(pgliteVersion)
    .update(JSON.stringify(migrations))
    .digest('hex')
    .slice(0, 16);
  const dir = join(root, 'node_modules', '.cache', 'tailcam-server-test');
  const file = join(dir, `pglite-migrated-${key}.tar`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const client = await openPgliteClient(undefined);
    await migrate(client);
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, Buffer.from(await (await client.dump()).arrayBuffer()));
    await client.close();
    renameSync(partial, file);
  }
  project.provide('pgliteDump', file);
}
