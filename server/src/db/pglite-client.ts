import { PGlite } from '@electric-sql/pglite';
import type { SqlClient } from './sql-client';

/** Embedded PostgreSQL (WASM). `dataDir` undefined keeps the database in memory (tests). */
export async function openPgliteClient(dataDir: string | undefined): Promise<SqlClient> {
  const db = dataDir === undefined ? new PGlite() : new PGlite(dataDir);
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
  };
}
