/**
 * Accounts. One store over SQL; the driver underneath is PGlite (embedded default) or PostgreSQL.
 * Usernames are unique regardless of case and kept as typed.
 */
import { randomUUID } from 'node:crypto';
import type { SqlClient } from './sql-client';

export interface User {
  id: string;
  username: string;
  createdAt: Date;
  disabledAt: Date | null;
}

export interface UserWithHash extends User {
  passwordHash: string;
}

export class DuplicateUsernameError extends Error {
  constructor(readonly username: string) {
    super(`A user named "${username}" already exists`);
    this.name = 'DuplicateUsernameError';
  }
}

export interface UserStore {
  createUser(username: string, passwordHash: string): Promise<User>;
  /** Case-insensitive. */
  findByUsername(username: string): Promise<UserWithHash | undefined>;
  findById(id: string): Promise<User | undefined>;
  listUsers(): Promise<User[]>;
  countUsers(): Promise<number>;
  /** Returns false when no such user exists. */
  setPasswordHash(username: string, passwordHash: string): Promise<boolean>;
  /** Returns false when no such user exists; disabling twice keeps the first time. */
  disableUser(username: string): Promise<boolean>;
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

interface UserRow {
  id: string;
  username: string;
  password_hash: string;
  created_at: Date | string;
  disabled_at: Date | string | null;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const USER_COLUMNS = 'id, username, password_hash, created_at, disabled_at';

const toDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    createdAt: toDate(row.created_at),
    disabledAt: row.disabled_at === null ? null : toDate(row.disabled_at),
  };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '23505';
}

export function createUserStore(client: SqlClient): UserStore {
  return {
    async createUser(username, passwordHash) {
      try {
        const { rows } = await client.query<UserRow>(
          `INSERT INTO users (id, username, password_hash) VALUES ($1, $2, $3) RETURNING ${USER_COLUMNS}`,
          [randomUUID(), username, passwordHash],
        );
        return toUser(rows[0]!);
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateUsernameError(username);
        throw error;
      }
    },
    async findByUsername(username) {
      const { rows } = await client.query<UserRow>(
        `SELECT ${USER_COLUMNS} FROM users WHERE lower(username) = lower($1)`,
        [username],
      );
      const row = rows[0];
      return row === undefined ? undefined : { ...toUser(row), passwordHash: row.password_hash };
    },
    async findById(id) {
      // A malformed id would make PostgreSQL raise an error; it simply names no user.
      if (!UUID_PATTERN.test(id)) return undefined;
      const { rows } = await client.query<UserRow>(
        `SELECT ${USER_COLUMNS} FROM users WHERE id = $1`,
        [id],
      );
      return rows[0] === undefined ? undefined : toUser(rows[0]);
    },
    async listUsers() {
      const { rows } = await client.query<UserRow>(
        `SELECT ${USER_COLUMNS} FROM users ORDER BY lower(username)`,
      );
      return rows.map(toUser);
    },
    async countUsers() {
      const { rows } = await client.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM users',
      );
      return rows[0]?.count ?? 0;
    },
    async setPasswordHash(username, passwordHash) {
      const { rows } = await client.query<{ id: string }>(
        'UPDATE users SET password_hash = $2 WHERE lower(username) = lower($1) RETURNING id',
        [username, passwordHash],
      );
      return rows.length > 0;
    },
    async disableUser(username) {
      const { rows } = await client.query<{ id: string }>(
        'UPDATE users SET disabled_at = coalesce(disabled_at, now()) WHERE lower(username) = lower($1) RETURNING id',
        [username],
      );
      return rows.length > 0;
    },
    async ping() {
      await client.query('SELECT 1');
    },
    close: () => client.close(),
  };
}
