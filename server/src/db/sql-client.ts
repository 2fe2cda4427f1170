/** The little a store needs from a database driver; PGlite and node-postgres both provide it. */
export interface SqlClient {
  query<Row extends object>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  /** Runs `work` in one transaction on one connection. */
  transaction<T>(work: (client: SqlQuery) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export type SqlQuery = Pick<SqlClient, 'query'>;
