/**
 * Boots PGlite once for the whole run and stores a migrated, empty database as a tarball; test
 * files start their in-memory database from it instead of running initdb each (seconds each).
 */
import { rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate } from '../db/migrations';
import { openPgliteClient } from '../db/pglite-client';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteDump: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'tailcam-pglite-'));
  const file = join(dir, 'migrated.tar');
  const client = await openPgliteClient(undefined);
  await migrate(client);
  writeFileSync(file, Buffer.from(await (await client.dump()).arrayBuffer()));
  await client.close();
  project.provide('pgliteDump', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
