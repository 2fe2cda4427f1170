/** Opens the configured user store (PGlite under DATA_DIR, or PostgreSQL) and migrates it. */
import { join } from 'node:path';
import { migrate } from './migrations';
import { openPgliteClient } from './pglite-client';
import { openPostgresClient } from './postgres-client';
import { tryLockDataDir, type DataDirLock } from './data-dir-lock';
import { createUserStore, type UserStore } from './user-store';
import type { SqlClient } from './sql-client';

export const PGLITE_DIR = 'pglite';

export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
    readonly ownerRole: string,
  ) {
    super(
      `The data directory ${dataDir} is in use by process ${ownerPid} (${ownerRole}); PGlite allows one process at a time`,
    );
    this.name = 'DataDirBusyError';
  }
}

export async function openMigratedStore(client: SqlClient, lock?: DataDirLock): Promise<UserStore> {
  try {
    await migrate(client);
  } catch (error) {
    await client.close().catch(() => {});
    lock?.release();
    throw error;
  }
  const store = createUserStore(client);
  return {
    ...store,
    async close() {
      try {
        await store.close();
      } finally {
        lock?.release();
      }
    },
  };
}

export type StoreLocation = { databaseUrl: string } | { dataDir: string };

/**
 * PostgreSQL when a URL is given; otherwise PGlite in `DATA_DIR/pglite`, after locking the data
 * directory (throws DataDirBusyError when another live process holds it).
 */
export async function openUserStore(location: StoreLocation, role: string): Promise<UserStore> {
  if ('databaseUrl' in location) {
    return openMigratedStore(openPostgresClient({ connectionString: location.databaseUrl }));
  }
  const attempt = tryLockDataDir(location.dataDir, role);
  if (!attempt.acquired) {
    throw new DataDirBusyError(location.dataDir, attempt.ownerPid, attempt.ownerRole);
  }
  let client: SqlClient;
  try {
    client = await openPgliteClient(join(location.dataDir, PGLITE_DIR));
  } catch (error) {
    attempt.lock.release();
    throw error;
  }
  return openMigratedStore(client, attempt.lock);
}
