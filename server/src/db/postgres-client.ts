import pg from 'pg';
import type { SqlClient } from './sql-client';

export interface PostgresClientOptions {
  connectionString: string;
  /** Tests run in their own schema so that concurrent runs never collide. */
  schema?: string;
  max?: number;
}

/** PostgreSQL through a node-postgres pool. */
export function openPostgresClient(options: PostgresClientOptions): SqlClient {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5_000,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return {
    async query<Row extends object>(sql: string, params: unknown[] = []) {
      const result = await pool.query<Row & pg.QueryResultRow>(sql, params);
      return { rows: result.rows };
    },
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work({
          async query<Row extends object>(sql: string, params: unknown[] = []) {
            const res = await client.query<Row & pg.QueryResultRow>(sql, params);
            return { rows: res.rows };
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
