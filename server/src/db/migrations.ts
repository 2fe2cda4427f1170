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
  {
    version: 3,
    name: 'users_canonical_name_and_token_generation',
    // Names are compared by the key the application computes (accounts/username.ts), not by
    // SQL's lower(), whose Unicode and locale rules differ from it; existing names are folded the
    // same way (ASCII letters only, as the grammar allows). `token_generation` goes up with every
    // password change, disable and removal: login tokens carry the one they were issued under.
    sql: `
      ALTER TABLE users ADD COLUMN username_key text;
      UPDATE users SET username_key = translate(username, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
      ALTER TABLE users ALTER COLUMN username_key SET NOT NULL;
      CREATE UNIQUE INDEX users_username_key_key ON users (username_key);
      DROP INDEX users_username_lower_key;
      ALTER TABLE users ADD COLUMN token_generation integer NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 4,
    name: 'rate_limit_delays',
    // Progressive login delays when RATE_LIMIT_STORE=postgres (decision 0059). `allowed` is the
    // verdict of the row's last attempt, so that one upsert can return it.
    sql: `
      CREATE TABLE rate_limit_delays (
        key text PRIMARY KEY,
        window_end bigint NOT NULL,
        count integer NOT NULL,
        blocked_until bigint NOT NULL,
        allowed boolean NOT NULL
      );
      CREATE INDEX rate_limit_delays_window_end_idx ON rate_limit_delays (window_end);
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
