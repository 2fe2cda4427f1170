import { PGlite } from '@electric-sql/pglite';
import type { SqlClient } from './sql-client';

/**
 * Embedded PostgreSQL (WASM). `dataDir` undefined keeps the database in memory (tests), which
 * `loadDataDir` can start from a dump instead of an initdb (seconds faster).
 */
export interface PgliteClient extends SqlClient {
  /** The whole data directory as a tarball, for `loadDataDir`. */
  dump(): Promise<File | Blob>;
}

export async function openPgliteClient(
  dataDir: string | undefined,
  options: { loadDataDir?: Blob } = {},
): Promise<PgliteClient> {
  const db =
    dataDir === undefined
      ? new PGlite(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir })
      : new PGlite(dataDir);
  await db.waitReady;
  return {
    async query<Row extends object>(sql: string, params: unknown[] = []) {
      const result = await db.query<Row>(sql, params);
      return { rows: result.rows };
    },
    transaction(work) {
      return db.transaction((tx) =>
        work({
          async query<Row extends object>(sql: string, params: unknown[] = []) {
            const result = await tx.query<Row>(sql, params);
            return { rows: result.rows };
          },
        }),
      );
    },
    async close() {
      if (!db.closed) await db.close();
    },
    dump: () => db.dumpDataDir('none'),
  };
}
