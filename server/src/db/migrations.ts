/**
 * Schema migrations, the same SQL for PGlite and PostgreSQL, applied in order at start (server
 * and CLI). An advisory lock serialises concurrent starts against one PostgreSQL database.
 */
import type { SqlClient } from './sql-client';

interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATION_LOCK_ID = 74_330_001;

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'users',
    sql: `
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        username text NOT NULL CHECK (char_length(username) BETWEEN 1 AND 64),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        disabled_at timestamptz
      );
      CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username));
    `,
  },
  {
    version: 2,
    name: 'rate_limits',
    // Shared login rate-limit windows when RATE_LIMIT_STORE=postgres (decision 0030).
    sql: `
      CREATE TABLE rate_limits (
        key text PRIMARY KEY,
        window_start bigint NOT NULL,
        count integer NOT NULL
      );
      CREATE INDEX rate_limits_window_start_idx ON rate_limits (window_start);
    `,
  },
];

export async function migrate(client: SqlClient): Promise<number[]> {
  return client.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    await tx.query(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const newlyApplied: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      for (const statement of migration.sql.split(';').map((part) => part.trim())) {
        if (statement !== '') await tx.query(statement);
      }
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      newlyApplied.push(migration.version);
    }
    return newlyApplied;
  });
}
